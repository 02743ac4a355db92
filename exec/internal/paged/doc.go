// Package paged holds vectors that grow by pages: an element indexed by a
// dense id lives at pages[id>>Shift][id&(PageLen-1)], and growing adds
// pages without copying the ones held. A vector that doubles copies every
// element it holds at each doubling, touches twice its final size in fresh
// memory on the way, and holds the old and the new copy at once; a store
// of millions of rows spent a good part of its time in that copy.
package paged
