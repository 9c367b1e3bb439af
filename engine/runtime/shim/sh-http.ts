// The sh shim's HTTP request without curl. A curl start is mostly dynamic
// linking (some thirty libraries: about 15 ms here, bench/hook-latency), more
// than the rest of a firing together. Where the daemon is plain http on
// loopback and bash and coreutils' `timeout` are on PATH, the shim posts
// through bash's /dev/tcp instead (a third of a curl start), bounded by
// `timeout` (connect included); anywhere else (https, another host, no bash,
// macOS without `timeout`, HOOKMAP_SHIM_TRANSPORT=curl) it runs curl. Both
// write the same two files the shim reads back: the body to "$f.b" and
// "<status> <x-hookmap-exit> <x-hookmap-stream> <body bytes>" on stdout.
//
// The bash side: HTTP/1.0 with Connection: close (never chunked), the body read
// by its Content-Length (to EOF without one), the key file's line as a header,
// Content-Length in bytes (LC_ALL=C). Exit codes as curl's where they mean the
// same: 7 nothing listens, 8 a reply that is not HTTP, 18 a short body, 55 the
// request not sent. The payload goes to a file first ("$f.in", emptied once
// sent): bash reads a file in blocks, but a pipe or a socket (what Node gives
// a child) a byte a read. A NUL byte, which no JSON holds, ends either early.

/** The bash program (its arguments: host, port, path, key file, gate ('' or 1), body file). */
const BASH_HTTP = [
  'LC_ALL=C',
  'shopt -s nocasematch',
  'exec 2>/dev/null',
  'k=; IFS= read -r k <"$4"; k=${k%$\'\\r\'}; [ -n "$k" ] && k=$k$\'\\r\\n\'',
  "p=; IFS= read -r -d '' p",
  'exec 3<>"/dev/tcp/$1/$2" || exit 7',
  'g=; [ "$5" = 1 ] && g=$\'x-hookmap-gate: 1\\r\\n\'',
  "printf 'POST %s HTTP/1.0\\r\\nHost: %s:%s\\r\\nConnection: close\\r\\ncontent-type: application/json\\r\\ncontent-length: %s\\r\\n%s%s\\r\\n%s' \\",
  '  "$3" "$1" "$2" "${#p}" "$k" "$g" "$p" >&3 || exit 55',
  // the status line, then the headers up to the blank line; the body by its length (a proxy may keep the connection open)
  'IFS= read -r l <&3 || exit 8',
  "s=${l%$'\\r'}; s=${s#HTTP/1.[01] }; s=${s%% *}",
  'x=; t=; n=; e=',
  'while IFS= read -r l <&3; do',
  "  l=${l%$'\\r'}",
  '  [ -n "$l" ] || { e=1; break; }',
  '  case $l in',
  '    x-hookmap-exit:*) x=${l#*:}; x=${x# } ;;',
  '    x-hookmap-stream:*) t=${l#*:}; t=${t# } ;;',
  '    content-length:*) n=${l#*:}; n=${n# } ;;',
  '    transfer-encoding:*) exit 8 ;;',
  '  esac',
  'done',
  '[ -n "$e" ] || exit 8 # no blank line after the headers',
  'b=; case $n in',
  "  '') IFS= read -r -d '' b <&3 ;;",
  '  0) ;;',
  '  *[!0-9]*) exit 8 ;;',
  '  *) IFS= read -r -N "$n" b <&3 ;;',
  'esac',
  '[ -z "$n" ] || [ "$n" = "${#b}" ] || exit 18',
  'printf \'%s\' "$b" >"$6.b" || exit 23',
  'printf \'%s %s %s %s\' "$s" "$x" "$t" "${#b}"',
].join('\n');

/** Single-quoted for sh (the program holds no NUL). */
const quoted = `'${BASH_HTTP.replace(/'/g, `'\\''`)}'`;

/**
 * The shim's lines that post the payload and leave the reply in "$f" / "$f.b" ($base, $url, $key, $gate, $max,
 * $f set before), then turn a failure into the neutral answer. `curl` is the curl command line up to its URL.
 */
export function requestLines(curl: string): string[] {
  return [
    '# Plain http on loopback with bash and timeout at hand: bash posts (no curl start); anywhere else curl does.',
    'hp=; case $base in http://127.0.0.1:*|http://localhost:*) hp=${base#http://} ;; esac',
    '[ "${HOOKMAP_SHIM_TRANSPORT-}" = curl ] && hp=',
    "case ${hp#*:} in ''|*[!0-9]*) hp= ;; esac  # the port, digits alone (no path, no second colon)",
    'if [ -n "$hp" ] && command -v bash >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1; then',
    '  # the payload into a file first: bash reads a file in blocks, but a pipe or socket a byte at a time',
    '  cat >"$f.in" 2>/dev/null || neutral error',
    `  timeout "$max" bash -c ${quoted} \\`,
    '    _ "${hp%%:*}" "${hp#*:}" "${url#"$base"}" "$key" "${gate# }" "$f" <"$f.in" 2>/dev/null >"$f"',
    '  rc=$?; : >"$f.in"',
    'else',
    '  command -v curl >/dev/null 2>&1 || neutral error',
    `  ${curl} "$url" 2>/dev/null >"$f"`,
    '  rc=$?',
    'fi',
    'case $rc in 0) ;; 7) neutral down ;; 28|124) neutral timeout ;; *) neutral error ;; esac',
  ];
}
