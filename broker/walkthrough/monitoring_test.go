package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// Monitoring, from natscli's README ("Monitoring": nats server check
// stream, message, consumer, kv, jetstream and connection, Nagios-style),
// with canary messages as it suggests: thresholds met and missed, a
// threshold inverted (warn below critical), what is not there. The json
// and prometheus formats print the seconds since the last delivery and
// ack, which no two runs share, so the checks here print their text.
func TestMonitoringWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "monitoring",
		Lines: []string{
			"nats stream add ORDERS --subjects 'ORDERS.*' --defaults",
			"nats pub ORDERS.canary ping -H Canary:1",
			"nats pub ORDERS.new 'order 1'",
			"nats server check stream --stream ORDERS --msgs-warn 10 --msgs-critical 5",
			"nats server check stream --stream ORDERS --msgs-warn 1 --msgs-critical 0",
			"nats server check stream --stream ORDERS --subjects-warn 5 --subjects-critical 10",
			"nats server check stream --stream ORDERS --peer-expect 3",
			"nats server check stream --stream ORDERS --min-sources 1",
			"nats server check stream --stream NOPE",
			"nats server check message --stream ORDERS --subject ORDERS.canary --age-warn 1h --age-critical 2h --body ping",
			"nats server check message --stream ORDERS --subject ORDERS.canary --body pong",
			"nats server check message --stream ORDERS --subject ORDERS.none",
			"nats consumer add ORDERS MON --pull --defaults",
			"nats server check consumer --stream ORDERS --consumer MON --unprocessed-critical 1",
			"nats consumer next ORDERS MON --no-ack",
			"nats consumer next ORDERS MON",
			"nats server check consumer --stream ORDERS --consumer MON --outstanding-ack-critical 0",
			"nats server check consumer --stream ORDERS --consumer MON --waiting-critical 0",
			"nats server check consumer --stream ORDERS --consumer NOPE",
			"nats server check consumer --stream ORDERS --consumer MON --last-delivery-critical 1h --last-ack-critical 1h --redelivery-critical 0",
			"nats kv add CFG",
			"nats kv put CFG a 1",
			"nats server check kv --bucket CFG --values-critical 0",
			"nats server check kv --bucket CFG --key a",
			"nats server check kv --bucket CFG --key b",
			"nats server check kv --bucket NOPE",
			"nats server check jetstream --mem-warn 50 --mem-critical 75 --store-warn 50 --store-critical 75",
			"nats server check jetstream --streams-warn 1 --streams-critical 2",
			"nats server check connection --connect-warn 1s --connect-critical 2s",
		},
	})
}
