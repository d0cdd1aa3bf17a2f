package manager

import (
	"encoding/json"
)

// normalizeSchema returns a tool's input schema with an object root and
// no top-level oneOf, anyOf or allOf (which some model providers refuse):
// the branches' properties are merged, and only what every branch
// requires stays required.
func normalizeSchema(raw json.RawMessage) json.RawMessage {
	var root map[string]json.RawMessage
	if json.Unmarshal(raw, &root) != nil || root == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if !objectType(root["type"]) {
		// A root that is not an object (a string, an array…) cannot hold
		// named arguments: an empty object keeps what describes it.
		kept := map[string]json.RawMessage{}
		for _, k := range []string{"$schema", "title", "description"} {
			if v, ok := root[k]; ok {
				kept[k] = v
			}
		}
		root = kept
	}
	props := map[string]json.RawMessage{}
	var required []string
	hadRequired := false
	mergeFrom := func(m map[string]json.RawMessage) {
		var p map[string]json.RawMessage
		if json.Unmarshal(m["properties"], &p) == nil {
			for k, v := range p {
				if _, ok := props[k]; !ok {
					props[k] = v
				}
			}
		}
	}
	mergeFrom(root)
	if json.Unmarshal(root["required"], &required) == nil && required != nil {
		hadRequired = true
	} else {
		required = nil
		delete(root, "required")
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		var branches []map[string]json.RawMessage
		if json.Unmarshal(root[key], &branches) != nil {
			delete(root, key)
			continue
		}
		delete(root, key)
		var common []string
		for i, b := range branches {
			mergeFrom(b)
			var req []string
			_ = json.Unmarshal(b["required"], &req)
			switch {
			case key == "allOf":
				required = append(required, req...)
				hadRequired = hadRequired || len(req) > 0
			case i == 0:
				common = req
			default:
				common = intersect(common, req)
			}
		}
		if key != "allOf" {
			required = append(required, common...)
			hadRequired = hadRequired || len(common) > 0
		}
	}
	root["type"] = json.RawMessage(`"object"`)
	p, _ := json.Marshal(props)
	root["properties"] = p
	if hadRequired {
		r, _ := json.Marshal(dedupe(required))
		root["required"] = r
	}
	out, err := json.Marshal(root)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return out
}

// objectType says whether a schema's "type" allows an object: absent,
// "object", or a list with "object" in it.
func objectType(raw json.RawMessage) bool {
	if raw == nil {
		return true
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == "object"
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, t := range many {
			if t == "object" {
				return true
			}
		}
	}
	return false
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
