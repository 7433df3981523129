package lang

// russian is ryo's messages in Russian.
func russian() Messages {
	return Messages{Texts: map[string]string{}, Plurals: map[string]Plural{}}
}
