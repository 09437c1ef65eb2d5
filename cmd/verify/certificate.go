package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/transformer-cookbook/verify/certify/recheck"
	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/internal/atomicfile"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// kindCertificate is the kind of the document --certificate writes and
// 'verify recheck' reads.
const kindCertificate = "certificate"

// certificateDoc is what the analysis proved of the lengths of a check,
// for 'verify recheck': the construction it was proved against, the
// model (a file's, by its SHA-256, or the recipe's own), and each
// length's certificate.
type certificateDoc struct {
	Schema string            `json:"schema"`
	Recipe string            `json:"recipe"`
	Params map[string]string `json:"params,omitempty"`
	// Model is the file whose model was checked ("" : the recipe's own
	// construction), and ModelSHA256 its bytes' digest.
	Model       string             `json:"model,omitempty"`
	ModelSHA256 string             `json:"model_sha256,omitempty"`
	Checks      []certificateCheck `json:"checks"`
}

// certificateCheck is one weighting's check: its options and the
// certificates of the lengths the analysis certified.
type certificateCheck struct {
	Weighting string             `json:"weighting"`
	MaxN      int                `json:"max_n"`
	Precision string             `json:"precision"`
	Lengths   []*recheck.Encoded `json:"lengths"`
}

// writeCertificates writes the certificates of the reports to path,
// atomically.
func writeCertificates(path string, r *recipes.Recipe, params map[string]string, modelFile, digest string, reports []*check.Report) error {
	doc := certificateDoc{Schema: schemaID(kindCertificate), Recipe: r.Name, Params: params, Model: modelFile, ModelSHA256: digest}
	for _, rep := range reports {
		doc.Checks = append(doc.Checks, certificateCheck{Weighting: rep.Weighting, MaxN: rep.MaxN, Precision: rep.Precision,
			Lengths: rep.Certificates})
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return writeJSON(w, doc) }); err != nil {
		return badInput("--certificate: %v", err)
	}
	return nil
}

// cmdRecheck re-checks the certificates of a file with the independent
// checker, against the model they are about (the recipe's own, or
// --model's, which must be the file they name by its digest).
func cmdRecheck(args []string, stdout, stderr io.Writer) error {
	o := new(recheckOptions)
	positional, err := parseFlags("recheck", args, o)
	if err != nil {
		return err
	}
	if err := noPositional("recheck", positional); err != nil {
		return err
	}
	doc, r, err := o.readCertificates()
	if err != nil {
		return err
	}
	user, err := o.certifiedModel(doc, r)
	if err != nil {
		return err
	}
	total, accepted := 0, 0
	for _, c := range doc.Checks {
		res, err := recheckOne(r, doc.Params, user, c)
		if err != nil {
			return err
		}
		for _, line := range res {
			fmt.Fprintln(stdout, line.text)
			total++
			if line.ok {
				accepted++
			}
		}
	}
	if total == 0 {
		return badInput("%s holds no certificate", o.certificate.text)
	}
	if accepted < total {
		fmt.Fprintf(stdout, "REFUSED: %d of %s do not hold\n", total-accepted, plural.Of(total, "certificate"))
		return errFindings
	}
	fmt.Fprintf(stdout, "ACCEPTED: every one of %s holds (re-derived by the independent checker)\n", plural.Of(total, "certificate"))
	return nil
}

// readCertificates reads the file of --certificate and the recipe it is
// about.
func (o *recheckOptions) readCertificates() (*certificateDoc, *recipes.Recipe, error) {
	path, ok := o.certificate.text, o.certificate.set
	if !ok {
		return nil, nil, badInput("--certificate FILE is required: the file 'verify check --certificate FILE' wrote")
	}
	limit, err := o.inputLimit()
	if err != nil {
		return nil, nil, err
	}
	data, err := readInput(path, "--certificate", limit)
	if err != nil {
		return nil, nil, err
	}
	var doc certificateDoc
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, badInput("%s: not a certificate: %v", path, err)
	}
	if err := readSchema(doc.Schema, kindCertificate); err != nil {
		return nil, nil, badInput("%s: %v", path, err)
	}
	r, err := recipes.Get(doc.Recipe)
	if err != nil {
		return nil, nil, badInput("%s: %v", path, err)
	}
	return &doc, r, nil
}

// certifiedModel reads the model of --model, which must be the file the
// certificates name by its digest, if they are about one (nil when they
// are about the recipe's own construction).
func (o *recheckOptions) certifiedModel(doc *certificateDoc, r *recipes.Recipe) (*model.Model, error) {
	path := o.certificate.text
	if !o.model.set {
		if doc.ModelSHA256 != "" {
			return nil, badInput("%s is about the model of %s: give it with --model", path, doc.Model)
		}
		return nil, nil
	}
	user, _, _, digest, err := o.readModelFileDigest()
	if err != nil {
		return nil, err
	}
	if doc.ModelSHA256 == "" {
		return nil, badInput("%s is about %s's own construction, not a model file: drop --model", path, r.Name)
	}
	if digest != doc.ModelSHA256 {
		return nil, badInput("--model: the file's SHA-256 is %s, the certificate's model's %s: it is about another model", digest, doc.ModelSHA256)
	}
	return user, nil
}

// recheckLine is the verdict on one length's certificate.
type recheckLine struct {
	text string
	ok   bool
}

// recheckOne re-checks one weighting's certificates: it builds the
// construction as the check did (its recipe, parameters, weighting and
// N), adopts the model, and has the checker re-derive each length's
// certificate from the two models, the lengths one after another.
func recheckOne(r *recipes.Recipe, params map[string]string, user *model.Model, c certificateCheck) ([]recheckLine, error) {
	w := r.DefaultWeighting()
	if strings.Contains(c.Weighting, "(the model's)") || c.Weighting == "no attention" {
		// The model's own weighting: the recipe's default reference.
	} else if c.Weighting != "" {
		var err error
		if w, err = recipes.ParseWeighting(c.Weighting); err != nil {
			return nil, badInput("certificate: weighting %q: %v", c.Weighting, err)
		}
	}
	p, err := numeric.ParsePrecision(c.Precision)
	if err != nil {
		return nil, badInput("certificate: %v", err)
	}
	if c.MaxN < 1 || c.MaxN > 1<<24 {
		return nil, badInput("certificate: max_n %d is not a length from 1 to %d", c.MaxN, 1<<24)
	}
	ck, err := check.NewChecker(r, check.Options{Precision: p, Weighting: w, MaxN: c.MaxN, Params: params, Model: user, Unlisted: user == nil && !r.Supports(w)})
	if err != nil {
		return nil, badInput("certificate: %v", err)
	}
	var out []recheckLine
	prev := 0
	for _, e := range c.Lengths {
		if e == nil || e.N < 1 || e.N > c.MaxN {
			return nil, badInput("certificate: a length outside 1 … %d", c.MaxN)
		}
		if e.N <= prev {
			return nil, badInput("certificate: the lengths are not in increasing order (%d after %d)", e.N, prev)
		}
		prev = e.N
		rep, err := ck.Recheck(e)
		line := recheckLine{ok: err == nil}
		if err != nil {
			line.text = fmt.Sprintf("%s at %s, n = %d: refused: %v", r.Name, c.Precision, e.N, err)
		} else {
			verdict := "every input " + check.FaithfulClaim(check.ReferenceOf(ck.Con))
			if !rep.Certified {
				verdict = "every input decides as the construction does"
			}
			line.text = fmt.Sprintf("%s at %s, n = %d: accepted: %s (checker's work %d)", r.Name, c.Precision, e.N, verdict, rep.Work)
		}
		out = append(out, line)
	}
	return out, nil
}
