package walkthrough

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"natslab/broker/brokertest"
)

// Services, from natscli's README ("Service Requests and Creation"):
// requests to a responder on cli.weather.>, then the micro services API
// (nats service / nats micro) against a service started by the test. The
// README's responders run `nats reply` in another shell, and its second
// one runs curl against wttr.in; here the test starts the responder and
// the service on each side's server before the script runs.
func TestServicesWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name:  "services",
		Setup: startWeather,
		Lines: []string{
			`nats request "cli.weather.london" ''`,
			`nats request "cli.weather.paris" '' --raw`,
			`nats request "cli.weather.{london,newyork}" '' --raw`,
			`nats service ls`,
			`nats micro ls`,
			`nats service info weather`,
			`nats service request weather forecast london --raw`,
			`nats service request weather forecast paris`,
			`nats service stats weather`,
			`nats service ping weather`,
			`nats service info nosuchservice`,
		},
	})
}

// startWeather starts what the README starts in other shells: a responder
// on cli.weather.> in the queue group `nats reply` joins, and a micro
// service "weather" with a forecast endpoint, on the server at url.
func startWeather(t testing.TB, url string) {
	nc, err := nats.Connect(url, nats.Name("weather service"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if _, err := nc.QueueSubscribe("cli.weather.>", "NATS-RPLY-22", func(m *nats.Msg) {
		_ = m.Respond([]byte("Weather Service"))
	}); err != nil {
		t.Fatal(err)
	}
	svc, err := micro.AddService(nc, micro.Config{
		Name:        "weather",
		Version:     "1.0.0",
		Description: "Weather forecasts",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop() })
	if err := svc.AddEndpoint("forecast", micro.HandlerFunc(func(r micro.Request) {
		_ = r.Respond(append([]byte("sunny in "), r.Data()...))
	})); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}
