module example.com/iniconf

go 1.19
