package catalog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Store is the durable key-value store the catalog persists objects in.
// storage/ provides it on Badger; tests may use an in-memory map.
type Store interface {
	Get(key []byte) (val []byte, ok bool, err error)
	Put(key, val []byte) error
	Delete(key []byte) error
	// Scan calls fn for every key with the prefix, in key order.
	Scan(prefix []byte, fn func(key, val []byte) error) error
}

// ErrorCode classifies catalog errors for callers that branch on them.
type ErrorCode uint8

// The catalog error codes.
const (
	ErrNotFound      ErrorCode = iota + 1 // no object of that name
	ErrExists                             // an object of that name exists
	ErrWrongKind                          // the object is of another kind than the statement names
	ErrHasDependents                      // other objects read this one
)

// Error is a catalog error about one object.
type Error struct {
	Code ErrorCode
	Name string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// IsCode reports whether err is a catalog *Error with the given code.
func IsCode(err error, code ErrorCode) bool {
	var ce *Error
	return errors.As(err, &ce) && ce.Code == code
}

const (
	objectPrefix = "catalog/object/"
	nextIDKey    = "catalog/next_id"
)

// Catalog holds the objects, keyed by lower-cased name. It is safe for
// concurrent use.
type Catalog struct {
	mu      sync.RWMutex
	store   Store
	objects map[string]*Object
	nextID  uint64
	stats   map[uint64]Stats // by object ID (stats.go)
	// describe gives sources their traits on Create and on Open; nil
	// leaves them zero.
	describe Describer
}

// Open loads every object persisted in store. An entry that fails its
// checksum, does not decode or does not describe a valid object is a
// *storage.CorruptionError naming it: the catalog never opens with an
// object missing. describe gives every source its Traits, now and when it
// is created (nil: they stay zero); traits are never read from the store,
// so a catalog written by an older eddy gets those of today's connectors.
func Open(store Store, describe Describer) (*Catalog, error) {
	c := &Catalog{store: store, objects: map[string]*Object{}, nextID: 1, describe: describe}
	if v, ok, err := store.Get([]byte(nextIDKey)); err != nil {
		return nil, fmt.Errorf("catalog: reading next id: %w", err)
	} else if ok {
		b, err := unseal([]byte(nextIDKey), v, legacyID)
		if err != nil {
			return nil, err
		}
		if len(b) != 8 {
			return nil, corruptEntry([]byte(nextIDKey), fmt.Errorf("it is %d bytes, not 8", len(b)))
		}
		c.nextID = binary.BigEndian.Uint64(b)
	}
	ids := map[uint64]string{}
	err := store.Scan([]byte(objectPrefix), func(k, v []byte) error {
		o, err := decodeObject(k, v)
		if err != nil {
			return err
		}
		if other, dup := ids[o.ID]; dup {
			return corruptEntry(k, fmt.Errorf("its ID %d is also the ID of %s", o.ID, other))
		}
		ids[o.ID] = o.Name
		c.setTraits(o)
		c.objects[strings.ToLower(o.Name)] = o
		if o.ID >= c.nextID {
			c.nextID = o.ID + 1
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.loadStats(); err != nil {
		return nil, err
	}
	return c, nil
}

// Get returns the object named name (case-insensitive).
func (c *Catalog) Get(name string) (*Object, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	o, ok := c.objects[strings.ToLower(name)]
	return o, ok
}

// Lookup returns the object or a NotFound error naming it.
func (c *Catalog) Lookup(name string) (*Object, error) {
	if o, ok := c.Get(name); ok {
		return o, nil
	}
	return nil, &Error{Code: ErrNotFound, Name: name, Msg: fmt.Sprintf("unknown stream, table or view '%s'", name)}
}

// Create assigns o an ID and persists it. It fails with ErrExists if the
// name is taken, and with ErrNotFound if a dependency does not exist.
func (c *Catalog) Create(o *Object) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.ToLower(o.Name)
	if old, ok := c.objects[key]; ok {
		return &Error{Code: ErrExists, Name: o.Name, Msg: fmt.Sprintf("%s '%s' already exists", old.Kind, old.Name)}
	}
	for _, d := range o.DependsOn {
		if _, ok := c.objects[strings.ToLower(d)]; !ok {
			return &Error{Code: ErrNotFound, Name: d, Msg: fmt.Sprintf("unknown stream, table or view '%s'", d)}
		}
	}
	o.ID = c.nextID
	if err := c.persist(o, c.nextID+1); err != nil {
		return err
	}
	c.nextID++
	c.setTraits(o)
	c.objects[key] = o
	return nil
}

// setTraits gives a source object its connector's traits.
func (c *Catalog) setTraits(o *Object) {
	if c.describe != nil && o.IsSource() {
		o.Traits = c.describe(o)
	}
}

// decodeObject decodes the object stored under key k and checks that it
// is one: its key names it, and its ID and kind are set.
func decodeObject(k, v []byte) (*Object, error) {
	b, err := unseal(k, v, legacyJSON)
	if err != nil {
		return nil, err
	}
	var o Object
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, corruptEntry(k, fmt.Errorf("it does not decode: %w", err))
	}
	switch {
	case o.Name == "" || string(k) != objectPrefix+strings.ToLower(o.Name):
		return nil, corruptEntry(k, fmt.Errorf("it describes an object named %q", o.Name))
	case o.ID == 0:
		return nil, corruptEntry(k, errors.New("its object has no ID"))
	case o.Kind < Stream || o.Kind > Sink:
		return nil, corruptEntry(k, fmt.Errorf("its object has kind %d", o.Kind))
	}
	return &o, nil
}

func (c *Catalog) persist(o *Object, nextID uint64) error {
	b, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("catalog: encoding %s: %w", o.Name, err)
	}
	var idb [8]byte
	binary.BigEndian.PutUint64(idb[:], nextID)
	if err := c.store.Put([]byte(nextIDKey), seal(idb[:])); err != nil {
		return fmt.Errorf("catalog: persisting %s: %w", o.Name, err)
	}
	if err := c.store.Put([]byte(objectPrefix+strings.ToLower(o.Name)), seal(b)); err != nil {
		return fmt.Errorf("catalog: persisting %s: %w", o.Name, err)
	}
	return nil
}

// SetSettings gives the continuous query of the object named name the
// settings st (a rescale changes its parallelism) and persists it. The
// object is replaced, not changed: whoever holds the old one reads a
// consistent object, and the caller gets the new one.
func (c *Catalog) SetSettings(name string, st QuerySettings) (*Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.ToLower(name)
	old, ok := c.objects[key]
	if !ok {
		return nil, &Error{Code: ErrNotFound, Name: name, Msg: fmt.Sprintf("unknown stream, table or view '%s'", name)}
	}
	o := *old
	o.Settings = &st
	if err := c.persist(&o, c.nextID); err != nil {
		return nil, err
	}
	c.objects[key] = &o
	return &o, nil
}

// Dependents returns the names of the objects that read name, sorted.
func (c *Catalog) Dependents(name string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dependentsLocked(name)
}

func (c *Catalog) dependentsLocked(name string) []string {
	var out []string
	for _, o := range c.objects {
		for _, d := range o.DependsOn {
			if strings.EqualFold(d, name) {
				out = append(out, o.Name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// Drop removes the object named name, which must be of kind k. It refuses
// while other objects depend on it.
func (c *Catalog) Drop(name string, k Kind) (*Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := strings.ToLower(name)
	o, ok := c.objects[key]
	if !ok {
		return nil, &Error{Code: ErrNotFound, Name: name, Msg: fmt.Sprintf("unknown %s '%s'", k, name)}
	}
	if o.Kind != k {
		return nil, &Error{Code: ErrWrongKind, Name: name, Msg: fmt.Sprintf("'%s' is a %s, not a %s", o.Name, o.Kind, k)}
	}
	if deps := c.dependentsLocked(o.Name); len(deps) > 0 {
		verb, them := "depends", "it"
		if len(deps) > 1 {
			verb, them = "depend", "them"
		}
		return nil, &Error{Code: ErrHasDependents, Name: name, Msg: fmt.Sprintf(
			"cannot drop %s '%s': %s %s on it (drop %s first, or drop all with DROP %s %s CASCADE)",
			o.Kind, o.Name, strings.Join(deps, ", "), verb, them, strings.ToUpper(o.Kind.String()), o.Name)}
	}
	if err := c.dropStatsLocked(o.ID); err != nil {
		return nil, err
	}
	if err := c.store.Delete([]byte(objectPrefix + key)); err != nil {
		return nil, fmt.Errorf("catalog: dropping %s: %w", o.Name, err)
	}
	delete(c.objects, key)
	return o, nil
}

// List returns the objects of kind k (all objects for k == 0), ordered by name.
func (c *Catalog) List(k Kind) []*Object {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Object
	for _, o := range c.objects {
		if k == 0 || o.Kind == k {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

// InCreationOrder returns every object ordered by ID, so that an object comes
// after everything it depends on.
func (c *Catalog) InCreationOrder() []*Object {
	out := c.List(0)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
