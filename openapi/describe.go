package openapi

import (
	"errors"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// describe makes an operation's description: the first sentence of its
// summary, or else of its description, as plain text of at most 200
// characters that starts with a verb. A sentence that starts with a verb
// ("Finds pets by status", "Returns the forecast") is used as it is. A
// noun phrase ("7 day weather for coordinates") gets the verb of
// its method: Get for GET and HEAD, Update for PUT and PATCH, Delete for
// DELETE; POST has no verb that fits every use, so its noun phrases are
// refused, and so is a sentence about the endpoint ("This endpoint …").
func describe(method, summary, description string) (string, error) {
	var tried []string
	for _, text := range []string{summary, description} {
		s := firstSentence(plainText(firstParagraph(text)))
		if s == "" {
			continue
		}
		tried = append(tried, s)
		if isVerb(firstWord(s)) || beforeArticle(s) {
			return finish(s), nil
		}
	}
	if len(tried) == 0 {
		return "", errors.New("it has no summary or description; give one in the overrides")
	}
	s := tried[0]
	verb := methodVerb(method)
	if verb == "" || refusedStart[strings.ToLower(firstWord(s))] {
		return "", errors.New("its summary does not start with a verb (" + quote(s) + "); give a description in the overrides")
	}
	return finish(verb + " " + lowerFirst(s)), nil
}

// finish capitalizes d, drops a final full stop and cuts it to 200
// characters.
func finish(d string) string {
	d = strings.TrimSpace(d)
	if strings.HasSuffix(d, ".") && !strings.HasSuffix(d, "..") {
		d = strings.TrimSuffix(d, ".")
	}
	return cut(upperFirst(d), maxDescription)
}

func methodVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "Get"
	case http.MethodPut, http.MethodPatch:
		return "Update"
	case http.MethodDelete:
		return "Delete"
	}
	return ""
}

// refusedStart are first words after which a method's verb makes no
// sense: the sentence talks about the endpoint, or gives advice.
var refusedStart = map[string]bool{
	"this": true, "these": true, "that": true, "those": true, "it": true, "endpoint": true,
	"operation": true, "method": true, "route": true, "used": true, "use": true,
	"when": true, "if": true, "for": true, "to": true, "you": true, "we": true, "please": true,
	"note": true, "deprecated": true, "internal": true, "warning": true, "see": true,
}

// beforeArticle reports whether the first word is followed by an article
// or a determiner, as a verb is and a noun rarely is: "Plants a tree",
// "Rebuild the index", but not "Tree of nodes".
func beforeArticle(s string) bool {
	words := strings.Fields(s)
	return len(words) > 2 && !refusedStart[strings.ToLower(words[0])] && determiners[strings.ToLower(words[1])]
}

var determiners = wordSet("a an the all every each one this these those your my our their its some any new")

func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return strings.TrimRightFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// lowerFirst lowers the first letter of a noun phrase, unless the first
// word is an acronym or a name with capitals inside ("API", "iPhone").
func lowerFirst(s string) string {
	w := firstWord(s)
	upper := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			upper++
		}
	}
	if upper != 1 {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

func quote(s string) string { return `"` + cut(s, 60) + `"` }

// isVerb reports whether w is one of the verbs API summaries start with,
// in the imperative ("Find") or the third person ("Finds").
func isVerb(w string) bool {
	w = strings.ToLower(w)
	if verbs[w] {
		return true
	}
	for _, suffix := range []string{"s", "es"} {
		if stem, ok := strings.CutSuffix(w, suffix); ok && verbs[stem] {
			return true
		}
	}
	if stem, ok := strings.CutSuffix(w, "ies"); ok && verbs[stem+"y"] {
		return true
	}
	return false
}

// verbs holds verbs that are rarely nouns at the start of a summary
// ("Order details" is not an order to do something, so "order" is not
// here).
var verbs = wordSet(`
		accept activate add allocate analyze append apply approve archive assign attach authenticate authorize
		block build calculate call cancel change check claim clear clone close commit compare compute configure
		confirm connect convert copy count create deactivate decline decode delete deploy describe detach detect
		disable disconnect dismiss download duplicate edit enable encode end enqueue estimate evaluate execute
		expire explain export extract fetch filter find finish follow forget generate get give grant
		import increment initiate insert inspect install invite invoke join kill launch link list load
		lock log login logout look lookup mark match merge modify move notify obtain open patch pause
		perform ping place play poll predict preview print process provide publish pull purchase push put
		query queue read reboot receive redeem refresh register reject release reload remove rename render
		renew reorder replace reply report request reserve reset resolve restart restore resume retrieve return
		revoke rotate run save scan schedule search select send set share show sign start stop store stream
		submit subscribe suggest suspend swap sync terminate test toggle track transfer transform translate
		trigger unarchive unassign unblock unfollow unlink unlock unpublish unregister unsubscribe update upgrade
		upload upsert validate verify watch withdraw write`)

func wordSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}
