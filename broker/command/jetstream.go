package command

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	// A stream's description is the first JetStream answer most lines
	// wait for: encoding/json's tables for it are built while the
	// program starts.
	_ "natslab/broker/jsonwarm"
)

// Shared helpers for the JetStream commands: clear errors for the mistakes
// every command meets (JetStream off, a name that does not exist).

// jsError explains a JetStream API error; errors it does not know pass through.
func (c *Call) jsError(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount),
		errors.Is(err, nats.ErrJetStreamNotEnabled), errors.Is(err, nats.ErrJetStreamNotEnabledForAccount):
		return c.jetStreamOff(err)
	case errors.Is(err, nats.ErrNoResponders):
		// The JetStream API has no responder: JetStream is off.
		return c.jetStreamOff(err)
	case apiErrorCode(err) == errCodeClusterUnavailable:
		return c.noMetaLeader(err)
	case apiErrorCode(err) == errCodeNoPeers:
		return c.noPeers(err)
	case unreachable(err):
		return explain(err, "%s", unreachableNote)
	}
	return err
}

// unreachableNote is the note for a line that found the server gone: the
// session's connection is reconnecting, or had to give up.
const unreachableNote = "the server is not reachable right now (is it restarting? try again in a moment)"

// unreachable reports whether err says the server could not be reached:
// the connection reconnecting (with no buffer to hold what was sent, as
// the lab's connections have none) or closed, or none to be made (the
// real CLI's own connection). natscli wraps some errors with %s, so the
// text is tested too.
func unreachable(err error) bool {
	for _, e := range []error{nats.ErrConnectionClosed, nats.ErrConnectionReconnecting, nats.ErrReconnectBufExceeded, nats.ErrNoServers} {
		if errors.Is(err, e) || strings.Contains(err.Error(), e.Error()) {
			return true
		}
	}
	return false
}

// apiErrorCode is the JetStream API's error code in err, whichever client
// library returned it; 0 if none.
func apiErrorCode(err error) uint16 {
	var js *jetstream.APIError
	var legacy *nats.APIError
	var jsmErr *api.ApiError
	var jsmValue api.ApiError // jsm.go's LoadConsumer returns the value
	switch {
	case errors.As(err, &js):
		return uint16(js.ErrorCode)
	case errors.As(err, &legacy):
		return uint16(legacy.ErrorCode)
	case errors.As(err, &jsmErr):
		return jsmErr.NatsErrorCode()
	case errors.As(err, &jsmValue):
		return jsmValue.NatsErrorCode()
	}
	return 0
}

// jsmTimeout is how long natscli's jsm.go-based commands (consumer add,
// edit, info, ls, report and rm, kv ls, account info's JetStream part)
// wait for JetStream: jsm.go's Manager takes --timeout but never less than
// half a second, so a --timeout 0 or 100ms still gets its answer there.
func jsmTimeout(d time.Duration) time.Duration { return max(d, 500*time.Millisecond) }

// jsHelper is natscli's prepareJSHelper, under its kv commands and sub's
// JetStream modes: a JetStream handle whose default timeout is --timeout,
// which nats.go refuses when it is not above zero.
func (c *Call) jsHelper() (jetstream.JetStream, error) {
	if c.timeout <= 0 {
		return nil, explain(fmt.Errorf("%w: timeout value must be greater than 0", jetstream.ErrInvalidOption), "--timeout %s leaves no time to wait for JetStream: give a positive one, like --timeout 5s", c.timeout)
	}
	js, err := c.JS()
	if err != nil {
		return nil, c.jsError(err)
	}
	return js, nil
}

// streamNames lists the streams that exist, sorted.
func (c *Call) streamNames() ([]string, error) {
	js, err := c.JS()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	return c.sortedNames(js.StreamNames(ctx))
}

// nameLister is what jetstream's stream and consumer name listings have in common.
type nameLister interface {
	Name() <-chan string
	Err() error
}

// sortedNames drains a listing.
func (c *Call) sortedNames(l nameLister) ([]string, error) {
	var names []string
	for n := range l.Name() {
		names = append(names, n)
	}
	if err := l.Err(); err != nil {
		return nil, c.jsError(err)
	}
	sort.Strings(names)
	return names, nil
}

// unknownStream says that name does not exist, and what does.
func (c *Call) unknownStream(name string) error {
	names, err := c.streamNames()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("stream %s not found: there are no streams yet (create one with stream add NAME --subjects 'events.>' --defaults)", name)
	}
	return fmt.Errorf("stream %s not found%s (streams: %s)", name, didYouMean(name, names), strings.Join(names, ", "))
}

// validStreamName explains what is wrong with a stream's name; nil when
// nothing is.
func validStreamName(name string) error {
	if jsm.IsValidName(name) {
		return nil
	}
	return badStreamName(name)
}

func badStreamName(name string) error {
	return usageErrorf("%q is not a valid stream name: names cannot hold spaces, dots, * or > (for example ORDERS)", name)
}

// stream looks a stream up, with a clear error when it does not exist.
func (c *Call) stream(name string) (jetstream.Stream, error) {
	js, err := c.JS()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	st, err := js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, c.unknownStream(name)
	}
	if errors.Is(err, jetstream.ErrInvalidStreamName) {
		return nil, badStreamName(name)
	}
	if err != nil {
		return nil, c.jsError(err)
	}
	return st, nil
}

// consumerNames lists a stream's consumers, sorted.
func (c *Call) consumerNames(st jetstream.Stream) ([]string, error) {
	ctx, cancel := c.Timeout()
	defer cancel()
	return c.sortedNames(st.ConsumerNames(ctx))
}

// unknownConsumer says that a consumer does not exist on a stream, and what does.
func (c *Call) unknownConsumer(st jetstream.Stream, name string) error {
	stream := st.CachedInfo().Config.Name
	names, err := c.consumerNames(st)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("consumer %s not found: stream %s has no consumers yet (create one with consumer add %s NAME --pull --defaults)", name, stream, stream)
	}
	return fmt.Errorf("consumer %s not found on stream %s%s (consumers: %s)", name, stream, didYouMean(name, names), strings.Join(names, ", "))
}

// consumer looks a consumer up, with clear errors for a missing stream or consumer.
func (c *Call) consumer(stream, name string) (jetstream.Stream, jetstream.Consumer, error) {
	st, err := c.stream(stream)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	con, err := st.Consumer(ctx, name)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, nil, c.unknownConsumer(st, name)
	}
	if err != nil {
		return nil, nil, c.jsError(err)
	}
	return st, con, nil
}

// confirm asks before destroying data, as the real CLI asks in a terminal.
// With force it goes ahead; without a way to ask (a script) it refuses as
// the real CLI does without a terminal, and the note says to add --force.
func (c *Call) confirm(force bool, question, forceHint string) (bool, error) {
	if force {
		return true, nil
	}
	if c.S.confirm == nil {
		return false, explain(fatalIf(errNoConfirm, "could not obtain confirmation"), "%s", forceHint)
	}
	return c.S.confirm(question), nil
}
