package certify

// outputs compares, for every final state pair, the checked model's
// output with the reference's exact one.
func (a *analysis[T]) outputs(cur *states[T]) string {
	for _, i := range a.positions(cur) {
		why := a.each(cur, i, func(s *state[T]) string {
			fr, err := a.ref.Steps().FinalNorm(s.ref)
			if err != nil {
				return "the reference's final norm: " + err.Error()
			}
			fm, err := a.checked.Steps().FinalNorm(s.checked)
			if err != nil {
				return "the model's final norm: " + err.Error()
			}
			ref, err := a.ref.Steps().Output(fr)
			if err != nil {
				return "the reference's output: " + err.Error()
			}
			got, err := a.checked.Steps().Output(fm)
			if err != nil {
				a.undecided = true // an output that cannot be read decides nothing
				a.suspect("output", "the model's output cannot be read: "+err.Error(), s.witness)
				return ""
			}
			if ok, why := a.input.Right(ref, got); !ok {
				if a.input.Decides != nil && !a.input.Decides(ref, got) {
					// Listed apart, and first, so that the candidates
					// try the inputs that decide wrong before those
					// that are merely inexact.
					a.undecided = true
					a.record(&a.undecidedSuspects, "output", "a reachable state decides wrong: "+why, s.witness)
					return ""
				}
				a.suspect("output", "a reachable state gives a wrong output: "+why, s.witness)
			}
			return ""
		})
		if why != "" {
			return why
		}
	}
	a.res.Suspects = append(a.undecidedSuspects, a.res.Suspects...)
	return ""
}

// suspect records a wrong final state.
func (a *analysis[T]) suspect(where, detail string, w witness) {
	a.record(&a.res.Suspects, where, detail, w)
}

// record adds a suspect to list (at most a few of each place).
func (a *analysis[T]) record(list *[]Suspect, where, detail string, w witness) {
	count := 0
	for _, s := range *list {
		if s.Where == where {
			count++
		}
	}
	if count >= maxSuspects {
		return
	}
	*list = append(*list, Suspect{Where: where, Detail: detail, Witness: w.assigns()})
}

// maxSuspects bounds the suspects kept per place.
const maxSuspects = 4
