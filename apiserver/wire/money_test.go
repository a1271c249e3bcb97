package wire

import (
	"encoding/json"
	"testing"
)

// Money encodes as the exact decimal the API has always written and
// decodes back to the same integer, negative amounts and null included.
func TestMoneyRoundTrip(t *testing.T) {
	for nano, text := range map[Money]string{0: "0", 1: "0.000000001", 24749850: "0.02474985", 1500000000: "1.5",
		-3500000000: "-3.5", 1234567891000000: "1234567.891"} {
		raw, err := json.Marshal(nano)
		if err != nil || string(raw) != text {
			t.Errorf("marshal %d: %s %v, want %s", nano, raw, err, text)
		}
		var back Money
		if err := json.Unmarshal(raw, &back); err != nil || back != nano {
			t.Errorf("unmarshal %s: %d %v", raw, back, err)
		}
	}
	var rec struct {
		A *Money `json:"a"`
		B Money  `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"a":null,"b":null}`), &rec); err != nil || rec.A != nil || rec.B != 0 {
		t.Errorf("null: %+v %v", rec, err)
	}
	if err := json.Unmarshal([]byte(`{"b":"1"}`), &rec); err == nil {
		t.Error("a string decoded as money")
	}
}
