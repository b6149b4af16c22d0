package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/nats-io/jsm.go/registry"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// schemaValidator checks a JetStream API request against the API's JSON
// schema, as natscli's cli.SchemaValidator does and with its words, except
// that each schema is compiled once per process: natscli's compiles it at
// every check, which is most of the check's work, and a learner's script
// adds stream after stream in one process.
type schemaValidator struct{}

// compiledSchemas holds each schema compiled so far, by its type
// (io.nats.jetstream.api.v1.stream_create_request and the like).
var compiledSchemas sync.Map

func compiledSchema(schemaType string) (*jsonschema.Schema, error) {
	if sch, ok := compiledSchemas.Load(schemaType); ok {
		return sch.(*jsonschema.Schema), nil
	}
	text, err := registry.Schema(schemaType)
	if err != nil {
		return nil, fmt.Errorf("unknown schema type %s", schemaType)
	}
	sch, err := jsonschema.CompileString("schema.json", string(text))
	if err != nil {
		return nil, fmt.Errorf("could not load schema %s: %s", text, err)
	}
	got, _ := compiledSchemas.LoadOrStore(schemaType, sch)
	return got.(*jsonschema.Schema), nil
}

// ValidateStruct is jsm.go's validator interface.
func (schemaValidator) ValidateStruct(data any, schemaType string) (ok bool, errs []string) {
	sch, err := compiledSchema(schemaType)
	if err != nil {
		return false, []string{err.Error()}
	}
	// The schema checks JSON's own values: the request as it goes on the
	// wire, numbers kept exact.
	raw, err := json.Marshal(data)
	if err != nil {
		return false, []string{fmt.Sprintf("could not serialize data: %s", err)}
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return false, []string{fmt.Sprintf("could not de-serialize data: %s", err)}
	}
	err = sch.Validate(doc)
	if err == nil {
		return true, nil
	}
	verr, isValidation := err.(*jsonschema.ValidationError)
	if !isValidation {
		return false, []string{fmt.Sprintf("could not validate: %s", err)}
	}
	for _, e := range verr.BasicOutput().Errors {
		// natscli leaves out the summaries: the root, and a oneOf or
		// allOf that failed because a branch did (which has its own).
		if e.KeywordLocation == "" || e.Error == "oneOf failed" || e.Error == "allOf failed" {
			continue
		}
		if e.InstanceLocation == "" {
			errs = append(errs, e.Error)
		} else {
			errs = append(errs, e.InstanceLocation+": "+e.Error)
		}
	}
	return false, errs
}
