// Package orders holds the pure decisions of the SwapOrder lifecycle: which step a reconcile
// takes, how a provider's answer moves the order, how transitions are recorded, when to poll
// or retry next, when a deposit has expired and when a terminal order may go. Nothing here
// performs I/O or reads the clock; the reconciler in controllers/ supplies "now" and
// randomness, so every rule is covered by table tests.
package orders
