module github.com/rivo/uniseg

go 1.18
