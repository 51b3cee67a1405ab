package ringq

import (
	"reflect"
	"testing"
)

func TestPushPopInOrder(t *testing.T) {
	r := New[int](3)
	r.Push(1)
	r.Push(2)
	if got := r.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
	for _, want := range []int{1, 2} {
		v, ok := r.Pop()
		if !ok || v != want {
			t.Fatalf("Pop = %d, %v; want %d, true", v, ok, want)
		}
	}
	if _, ok := r.Pop(); ok {
		t.Fatal("Pop on an empty ring reported ok")
	}
}

func TestFullRingOverwritesOldest(t *testing.T) {
	r := New[int](3)
	for i := 1; i <= 3; i++ {
		if r.Push(i) {
			t.Fatalf("Push(%d) evicted on a ring that was not full", i)
		}
	}
	if !r.Push(4) {
		t.Fatal("Push on a full ring did not report an eviction")
	}
	if got, want := r.Items(), []int{2, 3, 4}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Items = %v, want %v", got, want)
	}
}

func TestNewPanicsOnZeroCapacity(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(0) did not panic")
		}
	}()
	New[string](0)
}
