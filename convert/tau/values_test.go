package tau

import (
	"strings"
	"testing"
)

// TestParseRefusesImpossibleValues: non-finite numbers, negative counts and
// over-long names are refused with the file and line, as an out-of-range
// number (1e400) is.
func TestParseRefusesImpossibleValues(t *testing.T) {
	const head = "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
	const events = "0 aggregates\n1 userevents\n# eventname numevents max min mean sumsqr\n"
	long := strings.Repeat("f", MaxName+1)
	tests := []struct {
		name, text, want string
	}{
		{"1e400", head + `"main" 1 0 1e400 2 0 GROUP="TAU_USER"` + "\n", "profile.0.0.0:3: column 4 (\"1e400\") of the function line is not a number"},
		{"NaN excl", head + `"main" 1 0 NaN 2 0 GROUP="TAU_USER"` + "\n", "profile.0.0.0:3: column 4 (\"NaN\") of the function line is not a finite number"},
		{"Inf incl", head + `"main" 1 0 1 +Inf 0 GROUP="TAU_USER"` + "\n", "profile.0.0.0:3: column 5 (\"+Inf\") of the function line is not a finite number"},
		{"-Infinity incl", head + `"main" 1 0 1 -Infinity 0 GROUP="TAU_USER"` + "\n", "column 5 (\"-Infinity\") of the function line is not a finite number"},
		{"negative calls", head + `"main" -3 0 1 2 0 GROUP="TAU_USER"` + "\n", "profile.0.0.0:3: column 2 (\"-3\") of the function line is a count and must not be negative"},
		{"negative subrs", head + `"main" 3 -1 1 2 0 GROUP="TAU_USER"` + "\n", "column 3 (\"-1\") of the function line is a count"},
		{"negative profile calls", head + `"main" 3 1 1 2 -2 GROUP="TAU_USER"` + "\n", "column 6 (\"-2\") of the function line is a count"},
		{"long function name", head + `"` + long + `" 1 0 1 2 0 GROUP="TAU_USER"` + "\n", "profile.0.0.0:3: the function name is 65537 bytes long, more than 65536"},
		{"negative events", head + `"main" 1 0 1 2 0 GROUP="TAU_USER"` + "\n" + events + `"bytes" -5 1 1 1 1` + "\n", "profile.0.0.0:7: column 2 (\"-5\") of the user event line is a count"},
		{"NaN event mean", head + `"main" 1 0 1 2 0 GROUP="TAU_USER"` + "\n" + events + `"bytes" 5 1 1 nan 1` + "\n", "profile.0.0.0:7: column 5 (\"nan\") of the user event line is not a finite number"},
		{"long event name", head + `"main" 1 0 1 2 0 GROUP="TAU_USER"` + "\n" + events + `"` + long + `" 5 1 1 1 1` + "\n", "profile.0.0.0:7: the user event name is 65537 bytes long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.text), "profile.0.0.0")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// The limits themselves are accepted.
	ok := head + `"` + strings.Repeat("f", MaxName) + `" 0 0 -1.5 0 0 GROUP="TAU_USER"` + "\n"
	if _, err := Parse(strings.NewReader(ok), "profile.0.0.0"); err != nil {
		t.Errorf("a %d-byte name, zero counts and a negative time: %v", MaxName, err)
	}
}
