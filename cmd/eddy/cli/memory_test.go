package cli

import "testing"

func TestPlanMemory(t *testing.T) {
	const gib = int64(1) << 30
	detected := func() (int64, string) { return 8 * gib, "the address-space limit (ulimit -v)" }
	none := func() (int64, string) { return 0, "" }
	for _, tc := range []struct {
		name              string
		mem, state        int64
		stateGiven        bool
		detect            func() (int64, string)
		wantGo, wantState int64
		wantBound         int64
	}{
		{name: "memory limit given", mem: 4 * gib, detect: detected, wantGo: 4 * gib, wantState: 2 * gib, wantBound: 4 * gib},
		{name: "state limit given", mem: 4 * gib, state: gib, stateGiven: true, detect: detected, wantGo: 4 * gib, wantState: gib, wantBound: 4 * gib},
		{name: "state limit off", mem: 4 * gib, state: 0, stateGiven: true, detect: detected, wantGo: 4 * gib, wantState: 0, wantBound: 4 * gib},
		{name: "detected bound", detect: detected, wantGo: 6871947673, wantState: 4 * gib, wantBound: 8 * gib},
		{name: "nothing known", detect: none, wantGo: 0, wantState: 0, wantBound: 0},
		{name: "nothing known, state given", state: gib, stateGiven: true, detect: none, wantGo: 0, wantState: gib, wantBound: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planMemory(tc.mem, tc.state, tc.stateGiven, tc.detect)
			if p.goLimit != tc.wantGo || p.stateLimit != tc.wantState || p.bound != tc.wantBound {
				t.Errorf("plan = %+v, want go limit %d, state limit %d, bound %d", p, tc.wantGo, tc.wantState, tc.wantBound)
			}
		})
	}
}
