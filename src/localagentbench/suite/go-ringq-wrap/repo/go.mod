module example.com/ringq

go 1.19
