package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// object is a JSON object that keeps its keys in the order the source wrote them, so the
// document lists schemas' properties and operations' fields as their author ordered them.
type object struct {
	keys []string
	vals map[string]any
}

// obj builds an object from key, value pairs.
func obj(pairs ...any) *object {
	o := &object{}
	for i := 0; i < len(pairs); i += 2 {
		o.set(pairs[i].(string), pairs[i+1])
	}
	return o
}

func (o *object) get(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

func (o *object) has(k string) bool {
	if o == nil {
		return false
	}
	_, ok := o.vals[k]
	return ok
}

// fields are the keys in order; none for no object.
func (o *object) fields() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// set replaces the value of k in its place, or adds k last.
func (o *object) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// replace puts k2, which the object does not have, with v where k stands.
func (o *object) replace(k, k2 string, v any) {
	o.keys[slices.Index(o.keys, k)] = k2
	delete(o.vals, k)
	o.vals[k2] = v
}

// take removes k and returns its value.
func (o *object) take(k string) any {
	if !o.has(k) {
		return nil
	}
	v := o.vals[k]
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(key string) bool { return key == k })
	return v
}

func (o *object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := marshal(k)
		if err != nil {
			return nil, err
		}
		val, err := marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without escaping <, > and & (descriptions hold them).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// fromYAML is the value of a YAML node: *object, []any, or a scalar as YAML decodes it into any.
func fromYAML(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return fromYAML(n.Content[0])
	case yaml.AliasNode:
		return fromYAML(n.Alias)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromYAML(c)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		o := &object{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind != yaml.ScalarNode || key.ShortTag() == "!!merge" {
				return nil, fmt.Errorf("line %d: keys are plain strings", key.Line)
			}
			if o.has(key.Value) {
				return nil, fmt.Errorf("line %d: %s stated twice", key.Line, key.Value)
			}
			v, err := fromYAML(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			o.set(key.Value, v)
		}
		return o, nil
	case yaml.ScalarNode:
		var v any
		err := n.Decode(&v)
		return v, err
	}
	return nil, errors.New("unknown YAML node")
}

func clone(v any) any {
	switch v := v.(type) {
	case *object:
		c := &object{}
		for _, k := range v.keys {
			c.set(k, clone(v.vals[k]))
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = clone(x)
		}
		return c
	}
	return v
}

func lookup(v any, keys ...string) any {
	for _, k := range keys {
		o, ok := v.(*object)
		if !ok {
			return nil
		}
		v = o.get(k)
	}
	return v
}
