package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMessagesStayOneLine: a message quoting a long input quotes a
// clipped part of it, and says how much it left out: ties among 20,000
// scores, a score of 5,000 digits, a shard whose max_n has 5,000 digits,
// and data after a shard's document (refused, not ignored).
func TestMessagesStayOneLine(t *testing.T) {
	dir := t.TempDir()
	shards := lookupShards(t, dir, 8)
	data, err := os.ReadFile(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	longMaxN := write("long.json", regexp.MustCompile(`"max_n": \d+`).ReplaceAllLiteralString(string(data), `"max_n": `+strings.Repeat("9", 5000)))
	trailing := write("trailing.json", string(data)+"\n{\"more\": 1}\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"edelman", "--scores", strings.TrimSuffix(strings.Repeat("1,", 20000), ",")}, "and 19995 more"},
		{[]string{"edelman", "--scores", strings.Repeat("9", 5000) + ",1"}, "(5000 characters)"},
		{[]string{"merge", longMaxN, shards[1]}, "characters left out"},
		{[]string{"merge", trailing, shards[1]}, "data after the JSON document"},
	}
	for _, tt := range tests {
		_, stderr, status := runCmd(tt.args...)
		name := tt.args[0] + " " + clipMessage(strings.Join(tt.args[1:], " "), 60)
		if status != 2 || strings.Count(stderr, "\n") != 1 || utf8.RuneCountInString(stderr) > 400 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: status %d, stderr of %d characters %q; want status 2 and one line of at most 400 naming %q", name, status, len(stderr), clipMessage(stderr, 300), tt.want)
		}
	}
}

func TestClipMessage(t *testing.T) {
	if got := clipMessage("short", 10); got != "short" {
		t.Errorf("clipMessage(short) = %q", got)
	}
	long := strings.Repeat("é", 1000) + "END"
	got := clipMessage(long, 100)
	if !strings.HasPrefix(got, strings.Repeat("é", 66)) || !strings.HasSuffix(got, "END") || !strings.Contains(got, "(912 characters left out)") {
		t.Errorf("clipMessage of 1003 characters to 100: %q", got)
	}
}
