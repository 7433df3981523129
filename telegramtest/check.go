package telegramtest

// CheckHTML parses text sent with parse_mode=HTML as Telegram does and
// returns what the person would see, or the error Telegram would answer
// ("can't parse entities: ..."). Tests of other packages use it as the
// oracle for the HTML they produce. Like the rest of the fake it is
// stricter than Telegram: a bare "&" is an error.
func CheckHTML(text string) (display string, err error) {
	f, err := parseHTML(text)
	if err != nil {
		return "", badRequest("can't parse entities: %v", err)
	}
	return f.text, nil
}
