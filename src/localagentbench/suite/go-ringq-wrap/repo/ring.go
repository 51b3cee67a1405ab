// Package ringq provides a fixed-capacity FIFO ring buffer.
package ringq

// Ring is a fixed-capacity FIFO queue. When it is full, Push overwrites the
// oldest item. The zero value is not usable: create rings with New.
type Ring[T any] struct {
	buf  []T
	head int // index of the oldest item
	size int // number of items stored
}

// New returns an empty ring holding at most capacity items.
// It panics if capacity < 1.
func New[T any](capacity int) *Ring[T] {
	if capacity < 1 {
		panic("ringq: capacity must be at least 1")
	}
	return &Ring[T]{buf: make([]T, capacity)}
}

// Len is the number of items in the ring.
func (r *Ring[T]) Len() int { return r.size }

// Cap is the maximum number of items the ring holds.
func (r *Ring[T]) Cap() int { return len(r.buf) }

// Push appends v. When the ring is full the oldest item is overwritten and
// Push reports true.
func (r *Ring[T]) Push(v T) bool {
	if r.size == len(r.buf) {
		r.buf[r.head] = v
		return true
	}
	r.buf[r.head+r.size] = v
	r.size++
	return false
}

// Pop removes and returns the oldest item. ok is false when the ring is empty.
func (r *Ring[T]) Pop() (v T, ok bool) {
	if r.size == 0 {
		return v, false
	}
	v = r.buf[r.head]
	var zero T
	r.buf[r.head] = zero
	r.head++
	r.size--
	return v, true
}

// Peek returns the oldest item without removing it.
func (r *Ring[T]) Peek() (v T, ok bool) {
	if r.size == 0 {
		return v, false
	}
	return r.buf[r.head], true
}

// Items returns a copy of the items, oldest first.
func (r *Ring[T]) Items() []T {
	out := make([]T, 0, r.size)
	for i := r.head; i < r.head+r.size; i++ {
		out = append(out, r.buf[i])
	}
	return out
}

// Clear removes every item.
func (r *Ring[T]) Clear() {
	var zero T
	for i := range r.buf {
		r.buf[i] = zero
	}
	r.head, r.size = 0, 0
}
