// The one way a URL goes into a log line (up.log, the journal, a bridge's
// lines): its query's values never do, whatever their names (a token sent as
// `?access_token=`, a signed link's signature, a webhook's secret), nor a
// user:password part; the path is kept, bounded. Issue 40.
const MAX = 300;

/** `url` (absolute, or a request's path and query) fit for a log line. */
export function loggedUrl(url: string, max = MAX): string {
  const text = String(url);
  const hash = text.indexOf('#');
  const noFrag = hash >= 0 ? text.slice(0, hash) : text;
  const q = noFrag.indexOf('?');
  let head = q >= 0 ? noFrag.slice(0, q) : noFrag;
  head = head.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, '$1…@');
  let out = head;
  if (q >= 0) {
    const names = noFrag
      .slice(q + 1)
      .split('&')
      .filter(Boolean)
      .map(
        (kv) =>
          kv
            .split('=', 1)[0]
            .replace(/[^\w.~%-]/g, '')
            .slice(0, 40) + (kv.includes('=') ? '=…' : ''),
      );
    out += `?${names.join('&')}`;
  }
  return out.length > max ? `${out.slice(0, max)}…` : out;
}
