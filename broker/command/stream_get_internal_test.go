package command

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nats-io/jsm.go/api"
)

// A server answer to a message request that does not parse cannot be made
// on purpose: the line is pinned here. It is what jsm.go gives natscli for
// any JetStream answer that does not parse, the JSON decoder's own error,
// and the lab's words are a note.
func TestMalformedMessageAnswerIsTheDecodersLine(t *testing.T) {
	for _, answer := range []string{"not json", `{"message": 7}`, ""} {
		var resp api.JSApiMsgGetResponse
		want := json.Unmarshal([]byte(answer), &resp)
		if want == nil {
			t.Fatalf("%q parses", answer)
		}
		_, err := decodeMsgGet([]byte(answer))
		if got := ErrorLine(err); got != "nats: error: "+want.Error() {
			t.Errorf("%q: line %q, want natscli's %q", answer, got, "nats: error: "+want.Error())
		}
		if note := ErrorNote(err); !strings.Contains(note, "not the JSON JetStream answers with") {
			t.Errorf("%q: note %q", answer, note)
		}
	}
	// An answer without a message is no message, as jsm.go reads it.
	if m, err := decodeMsgGet([]byte(`{"type":"io.nats.jetstream.api.v1.stream_msg_get_response"}`)); m != nil || err != nil {
		t.Errorf("an answer without a message: %v, %v", m, err)
	}
	// The server's refusal is its API error, code and all.
	_, err := decodeMsgGet([]byte(`{"error":{"code":404,"err_code":10037,"description":"no message found"}}`))
	if !api.IsNatsError(err, 10037) || ErrorLine(err) != "nats: error: no message found (10037)" {
		t.Errorf("a refusal: %q", ErrorLine(err))
	}
}
