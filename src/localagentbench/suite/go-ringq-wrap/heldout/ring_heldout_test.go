package ringq

import (
	"reflect"
	"testing"
)

func TestHeldoutWrapAroundManyTimes(t *testing.T) {
	r := New[int](4)
	var model []int
	for i := 0; i < 50; i++ {
		if i%3 == 2 {
			v, ok := r.Pop()
			if len(model) == 0 {
				if ok {
					t.Fatalf("step %d: Pop on empty ring reported ok", i)
				}
				continue
			}
			if !ok || v != model[0] {
				t.Fatalf("step %d: Pop = %d, %v; want %d, true", i, v, ok, model[0])
			}
			model = model[1:]
			continue
		}
		evicted := r.Push(i)
		model = append(model, i)
		if len(model) > 4 {
			model = model[1:]
			if !evicted {
				t.Fatalf("step %d: Push on a full ring did not report an eviction", i)
			}
		} else if evicted {
			t.Fatalf("step %d: Push evicted on a ring that was not full", i)
		}
		if got := r.Items(); !reflect.DeepEqual(got, model) && !(len(got) == 0 && len(model) == 0) {
			t.Fatalf("step %d: Items = %v, want %v", i, got, model)
		}
		if r.Len() != len(model) {
			t.Fatalf("step %d: Len = %d, want %d", i, r.Len(), len(model))
		}
	}
}

func TestHeldoutPopAfterOverwrite(t *testing.T) {
	r := New[string](2)
	r.Push("a")
	r.Push("b")
	r.Push("c")
	if v, ok := r.Peek(); !ok || v != "b" {
		t.Fatalf("Peek = %q, %v; want b, true", v, ok)
	}
	for _, want := range []string{"b", "c"} {
		if v, ok := r.Pop(); !ok || v != want {
			t.Fatalf("Pop = %q, %v; want %q, true", v, ok, want)
		}
	}
	if r.Len() != 0 {
		t.Fatalf("Len = %d after emptying", r.Len())
	}
}

func TestHeldoutCapacityOne(t *testing.T) {
	r := New[int](1)
	for i := 0; i < 5; i++ {
		r.Push(i)
		if got := r.Items(); !reflect.DeepEqual(got, []int{i}) {
			t.Fatalf("Items = %v, want [%d]", got, i)
		}
	}
}

func TestHeldoutClearThenReuse(t *testing.T) {
	r := New[int](3)
	for i := 0; i < 7; i++ {
		r.Push(i)
	}
	r.Clear()
	r.Push(10)
	r.Push(11)
	if got := r.Items(); !reflect.DeepEqual(got, []int{10, 11}) {
		t.Fatalf("Items = %v, want [10 11]", got)
	}
	if r.Cap() != 3 {
		t.Fatalf("Cap = %d, want 3", r.Cap())
	}
}
