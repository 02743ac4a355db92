// Package hugepage asks the kernel to back memory with transparent huge
// pages where the system lets a process ask (transparent_hugepage set to
// "madvise", as most distributions ship it). A 2 MiB page costs one fault
// instead of 512, and one TLB entry instead of 512: on this project's VM
// a first touch of fresh memory cost 2.7–3.6 s per GiB in 4 KiB pages and
// 0.8–1.7 s in huge pages, and random reads of state larger than the
// caches pay a page-table walk each in 4 KiB pages.
//
// ReserveHeap advises the address range the Go heap will grow into, once,
// at a process's start (eddy's --heap-huge-pages); Advise and Make advise
// the large blocks of state (a string arena's blocks, a paged vector's
// page groups, hash tables) that a heap larger than that reservation
// allocates.
package hugepage
