// Package matching decides which recorded interaction answers a request, and
// explains a request that none answers. Every door that replays calls it:
// the proxy (reverse, forward, MITM) and recorder.Recorder, the go-vcr
// http.RoundTripper of users' own Go tests, so that a miss reads the same
// wherever it happens. It knows nothing of doors, listeners or goproxy: a
// door builds an Index of its cassettes, hands it each Request and gets
// back the recorded interaction or a Miss.
//
// Decisions worth knowing:
//
//   - Rules (the `match:` of cassette.yaml, the proxy's matching flags)
//     are applied to both sides before anything is compared: URL globs and
//     regexes, ignored query parameters, JSONPaths left out of or selected
//     from a JSON body, chosen headers, the body raw, JSON-canonical or
//     ignored. A JSONPath left out goes key and all (normalize.Omit), so a
//     key only one side has (a field a newer SDK adds) still matches.
//   - Presets (presets.go) are named Rules for LLM APIs' request bodies
//     (anthropic, openai, gemini): JSON, without the fields the official
//     SDKs add from one version to the next; each path is one a test saw
//     an SDK add (examples/llm-stream/sdk). Rules that name one add to it. What is left is one string key, so a lookup is one map
//     access whatever the number of recorded interactions. Cassettes under
//     different rules (the `match:` of their adapter or scenario) are
//     indexed apart; a request is looked up in each group in the order the
//     rules first appear.
//   - Requests are normalized before the key is made: scheme and host
//     lower-cased, default port dropped, query parameters sorted by name
//     (values keep their order), fragment dropped. Other headers, the
//     protocol and the client's address never take part (go-vcr's default
//     matcher compares them, which breaks proxy recordings).
//   - A multipart body (multipart/form-data, /mixed, …) is compared part
//     by part, by each part's name, filename, content type and content
//     (multipart.go): every client writes a new random boundary, so the
//     raw bytes of one upload never repeat. A miss shows the parts as
//     JSON, and says when only the boundary differs in a body that does
//     not parse.
//   - Sequences: the n-th identical request gets the n-th recorded
//     response. Once they are used up, the last one is served again only
//     when Rules.Replayable is set or the cassette says `replayable: true`;
//     `replayable: false` on a cassette wins over the rules. A request
//     whose responses are used up is a miss that says so (Miss.Used), not
//     a search for another interaction.
//   - Both sides are compared redacted, by the door's own redaction
//     (Options.Prepare), applied to a copy of each recorded request when
//     it is indexed. A request is looked up first as it came, and only one
//     that matches nothing that way is redacted and looked up again
//     (Index.Lookup): a request equal to a recorded one, the common case
//     and the hot path of replay, never pays for redaction, and a miss is
//     always explained from the redacted request.
//   - The closest miss is Hoverfly's: every recorded request scores 2
//     points per equal field (method, host, path, query, each chosen
//     header, body) and 1 per near one (a path with the same parent, a
//     query with the same parameter names); the best wins, and the first
//     recorded wins a tie, so the same cassettes and the same request name
//     the same interaction every time. Only interactions still available
//     compete (each entry knows its slot and place in it): turn 2 of a
//     replayed conversation is explained by recorded turn 2, not by turn 1,
//     which tied and was served. A served one that came closer is named
//     too (Miss.Closer), and a miss where every candidate was served says
//     so. It is found from posting lists rather than by scoring every
//     recorded request (closest.go), so a miss costs about the same at 1
//     and at 100,000 interactions; tests prove the lists give what the
//     scan gives.
//   - A miss says what a reader needs to fix it: the request, the closest
//     recorded interaction by file and line, the fields that differ, each
//     with a small diff (a body as a unified diff of its compared form,
//     JSON indented, without the paths left out, which it names), and one
//     command that re-records the cassette (Options.Rerecord: each door
//     knows how its cassettes are recorded, and where). A Miss is an error whose text is all of
//     that, and it unwraps to a *outcome.Error (E_REPLAY_MISS) whose
//     problems name file, line and field.
package matching
