package cluster

import "testing"

func TestMemberName(t *testing.T) {
	for _, tc := range []struct{ id, name string }{
		{"m1/0a1b2c3d", "m1"},
		{"a/b/0a1b2c3d", "a/b"},
		{"m1", "m1"},
	} {
		if got := memberName(tc.id); got != tc.name {
			t.Errorf("memberName(%q) = %q, want %q", tc.id, got, tc.name)
		}
	}
	m := &Member{cfg: Config{Member: "m1"}, incarnation: newIncarnation()}
	if got := memberName(m.clientID()); got != "m1" {
		t.Errorf("a client ID names member %q, want m1", got)
	}
}
