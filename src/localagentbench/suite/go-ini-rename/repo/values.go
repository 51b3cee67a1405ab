package iniconf

import (
	"fmt"
	"strconv"
	"strings"
)

// GetString returns the value of a key, or def when it is absent.
func (f *File) GetString(section, key, def string) string {
	if v, ok := f.Get(section, key); ok {
		return v
	}
	return def
}

// GetInt returns the value of a key as a decimal integer, or def when it is absent.
func (f *File) GetInt(section, key string, def int) (int, error) {
	v, ok := f.Get(section, key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("ini: %s.%s: %q is not an integer", section, key, v)
	}
	return n, nil
}

// GetBool returns the value of a key as a boolean, or def when it is absent.
func (f *File) GetBool(section, key string, def bool) (bool, error) {
	v, ok := f.Get(section, key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("ini: %s.%s: %q is not a boolean", section, key, v)
}
