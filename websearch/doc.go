// Package websearch asks a web search provider for pages about a query and
// gives back the same few facts from any of them: title, address, snippet,
// date and site.
//
// Two providers are built in: SearxNG, a metasearch engine the owner runs
// themselves (its JSON API), and Brave Search (its web search API, with a
// key). Both are a Searcher, the one method the web_search tool needs, so
// another provider is one more type. Cached wraps any Searcher: an answer
// is kept for a few minutes per query, concurrent identical queries share
// one request, and a failure is never kept.
//
// Whatever a provider sends is cleaned before anyone sees it: tags,
// entities and characters that hide or reorder text are taken out of
// titles and snippets, which are clipped; results whose address is not
// http(s), or carries credentials, are dropped, and so are repeats of an
// address; a host in another script is given in punycode. An answer is
// read up to 4 MB and its first hundred results, and a redirect is
// followed only within the provider's host, so that a key in a header
// goes nowhere else. A provider's failure is an *Error whose Kind says what the
// person can do about it: wait (RateLimited), tell the owner (Refused), or
// try again later (Unavailable).
package websearch
