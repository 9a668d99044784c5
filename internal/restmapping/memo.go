// Package restmapping remembers the manager's REST mappings. controller-runtime's cache asks
// the mapper whether a kind is namespaced on every Get and List; its dynamic mapper answers
// through layers of priority and multi mappers that allocate each time, a third of a cached
// GET's handler CPU in the benchmark's profile. A kind's mapping cannot change while its CRD
// exists (a CRD's scope is immutable), so a found mapping is kept for the process.
package restmapping

import (
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Memo answers RESTMapping from memory once the wrapped mapper found it; every other method,
// and every miss or error, goes to the wrapped mapper.
type Memo struct {
	meta.RESTMapper
	found sync.Map // key(gk, versions) → meta.RESTMapping
}

// NewProvider is a manager MapperProvider: controller-runtime's dynamic mapper, memoized.
func NewProvider(cfg *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	m, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return &Memo{RESTMapper: m}, nil
}

// RESTMapping returns a copy, so no caller can change what the next one gets.
func (m *Memo) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	k := gk.String() + "|" + strings.Join(versions, ",")
	if v, ok := m.found.Load(k); ok {
		mapping := v.(meta.RESTMapping)
		return &mapping, nil
	}
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	m.found.Store(k, *mapping)
	return mapping, nil
}
