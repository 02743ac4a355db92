// Package procfs reads the "name: N kB" lines of Linux's /proc files
// (/proc/meminfo, /proc/self/status), which eddy's command line and its
// huge-page reservation size memory by.
package procfs
