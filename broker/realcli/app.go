package realcli

import (
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/choria-io/fisk"
	"github.com/nats-io/natscli/cli"
	"github.com/nats-io/natscli/options"
)

// Module is the real CLI's module, whose version the child reports.
const Module = "github.com/nats-io/natscli"

// help is nats/main.go's application help.
const help = `NATS Utility

NATS Server and JetStream administration.

See 'nats cheat' for a quick cheatsheet of commands`

// llmInfo is nats/main.go's extra help for language models.
const llmInfo = `

This application supports LLM friendly output when ran with LLMFORMAT=1

The application applies tags to its commands that are visible in help output:

 - scope:user - Operates at user level, no system credentials needed
 - scope:system - Operates at system level, requires system credentials
 - impact:ro - Read only operation, does not modify NATS data or state
 - impact:rw - Read and write operation, modifies NATS data or state

LLM optimized help output can be obtained using --help-llm for any command. You must set LLMFORMAT=1 for all invocations of this command including when looking for help.
`

// colorSchemes are the values natscli's --colors accepts (its internal
// util.ValidStyles, which cannot be imported from outside natscli).
var colorSchemes = []string{"blue", "cyan", "double", "green", "magenta", "red", "rounded", "yellow"}

// newApp builds the real CLI on a fisk application, line for line as
// natscli v0.5.0's nats/main.go does, plugins aside (the child adds them).
// prepare is ConfigureInApp's: true loads the selected context before a
// command runs, as natscli's main has it; false for an application that
// only ever parses (see Answer), which must not read contexts in the lab's
// process.
//
// Building sets package state of natscli's (its options, its commands'
// settings): in the lab's process it is built under buildMu.
func newApp(prepare bool) (*fisk.Application, *options.Options, error) {
	ncli := fisk.New("nats", help)
	ncli.LLMExtraInformation(llmInfo)
	ncli.Author("NATS Authors <info@nats.io>")
	ncli.Version(Version())
	ncli.HelpFlag.Short('h')
	ncli.WithCheats().CheatCommand.Hidden()

	opts, err := cli.ConfigureInApp(ncli, nil, prepare)
	if err != nil {
		return nil, nil, err
	}
	cli.SetVersion(Version())

	ncli.Flag("server", "NATS server urls").Short('s').Envar("NATS_URL").PlaceHolder("URL").StringVar(&opts.Servers)
	ncli.Flag("user", "Username or Token").Envar("NATS_USER").PlaceHolder("USER").StringVar(&opts.Username)
	ncli.Flag("password", "Password").Envar("NATS_PASSWORD").PlaceHolder("PASSWORD").StringVar(&opts.Password)
	ncli.Flag("token", "Token").Envar("NATS_TOKEN").PlaceHolder("TOKEN").StringVar(&opts.Token)
	ncli.Flag("connection-name", "Nickname to use for the underlying NATS Connection").Default("NATS CLI Version " + Version()).PlaceHolder("NAME").StringVar(&opts.ConnectionName)
	ncli.Flag("creds", "User credentials").Envar("NATS_CREDS").PlaceHolder("LOCATION").StringVar(&opts.Creds)
	ncli.Flag("nkey", "User NKEY").Envar("NATS_NKEY").PlaceHolder("LOCATION").StringVar(&opts.Nkey)
	ncli.Flag("jwt", "User JWT").Envar("NATS_JWT").PlaceHolder("LOCATION").StringVar(&opts.UserJwt)
	ncli.Flag("seed", "User seed").Envar("NATS_SEED").PlaceHolder("LOCATION").StringVar(&opts.UserSeed)
	ncli.Flag("tlscert", "TLS public certificate").Envar("NATS_CERT").PlaceHolder("FILE").ExistingFileVar(&opts.TlsCert)
	ncli.Flag("tlskey", "TLS private key").Envar("NATS_KEY").PlaceHolder("FILE").ExistingFileVar(&opts.TlsKey)
	ncli.Flag("tlsca", "TLS certificate authority chain").Envar("NATS_CA").PlaceHolder("FILE").ExistingFileVar(&opts.TlsCA)
	ncli.Flag("tlsfirst", "Perform TLS handshake before expecting the server greeting").BoolVar(&opts.TlsFirst)
	ncli.Flag("tls-first", "alias for --tlsfirst").Hidden().BoolVar(&opts.TlsFirst)
	if runtime.GOOS == "windows" {
		ncli.Flag("certstore", "Uses a Windows Certificate Store for TLS (user, machine)").PlaceHolder("TYPE").EnumVar(&opts.WinCertStoreType, "user", "windowscurrentuser", "machine", "windowslocalmachine")
		ncli.Flag("certstore-match", "Which certificate to use in the store").PlaceHolder("QUERY").StringVar(&opts.WinCertStoreMatch)
		ncli.Flag("certstore-match-by", "Configures the way certificates are searched for (subject, issuer)").Default("subject").EnumVar(&opts.WinCertStoreMatchBy, "subject", "issuer")
		ncli.Flag("certstore-ca-match", "Which certificate authority should be used from the store").StringsVar(&opts.WinCertCaStoreMatch)
	}
	ncli.Flag("timeout", "Time to wait on responses from NATS").Default("5s").Envar("NATS_TIMEOUT").DurationVar(&opts.Timeout)
	ncli.Flag("socks-proxy", "SOCKS5 proxy for connecting to NATS server").Envar("NATS_SOCKS_PROXY").PlaceHolder("PROXY").StringVar(&opts.SocksProxy)
	ncli.Flag("js-api-prefix", "Subject prefix for access to JetStream API").PlaceHolder("PREFIX").StringVar(&opts.JsApiPrefix)
	ncli.Flag("js-event-prefix", "Subject prefix for access to JetStream Advisories").PlaceHolder("PREFIX").StringVar(&opts.JsEventPrefix)
	ncli.Flag("js-domain", "JetStream domain to access").PlaceHolder("DOMAIN").StringVar(&opts.JsDomain)
	ncli.Flag("domain", "JetStream domain to access").PlaceHolder("DOMAIN").Hidden().StringVar(&opts.JsDomain)
	ncli.Flag("inbox-prefix", "Custom inbox prefix to use for inboxes").PlaceHolder("PREFIX").StringVar(&opts.InboxPrefix)
	ncli.Flag("colors", "Sets a color scheme to use").PlaceHolder("SCHEME").Envar("NATS_COLOR").EnumVar(&opts.ColorScheme, colorSchemes...)
	ncli.Flag("context", "Configuration context").Envar("NATS_CONTEXT").PlaceHolder("NAME").StringVar(&opts.CfgCtx)
	ncli.Flag("trace", "Trace API interactions").UnNegatableBoolVar(&opts.Trace)
	ncli.Flag("no-context", "Disable the selected context").UnNegatableBoolVar(&cli.SkipContexts)
	return ncli, opts, nil
}

// Pinned is the natscli version go.mod requires, for builds that carry no
// module information (test binaries); TestPinnedIsGoModsVersion keeps the
// two together.
const Pinned = "v0.5.0"

var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Pinned
	}
	for _, d := range info.Deps {
		if d.Path == Module {
			if d.Replace != nil && d.Replace.Version != "" {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return Pinned
})

// Version is the real CLI's version as `nats --version` prints it: the
// version of the natscli module natslab is built with.
func Version() string { return version() }
