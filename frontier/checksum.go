package frontier

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// A shard's checksum seals what it holds: the SHA-256 of the report's
// JSON with the checksum left out, computed when the shard is made and
// again when it is read back (the JSON a report encodes to is its
// content: a field edited, added with a value or removed changes it;
// spaces do not). Merge and Phase2 refuse a shard whose checksum does
// not match. It is no signature: a shard rewritten with its checksum
// recomputed is caught only where its figures contradict each other or
// the construction (compose checks them, and runs each failure again);
// the counts of a passing length, which only the sweep itself could
// confirm, are taken as written.

// Seal sets the checksum of a shard's report, once its content is final.
func Seal(rep *Report) {
	rep.Checksum = checksum(rep)
}

// checksum is the checksum of rep's content.
func checksum(rep *Report) string {
	cp := *rep
	cp.Checksum = ""
	b, err := json.Marshal(&cp)
	if err != nil {
		// A Report holds strings, integers, booleans and slices and maps
		// of them: it always encodes.
		panic(fmt.Sprintf("frontier: encoding a report: %v", err))
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkSeal reports whether shard rep is as it was sealed.
func checkSeal(rep *Report) error {
	switch rep.Checksum {
	case "":
		return fmt.Errorf("no checksum: the shard was written by an earlier version of verify, or edited; run it again")
	case checksum(rep):
		return nil
	}
	return fmt.Errorf("the checksum does not match: the shard was changed after it was written; run it again")
}
