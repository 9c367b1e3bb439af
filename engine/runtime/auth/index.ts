// hookmap's authentication and browser guard (AEP-0003 §8.1 bearer tokens,
// §11 transport security; AEP-0004 §4.1/§4.3/§8 authenticated control and
// deployment-owned authorization). One module, used by the relay, `up`,
// `serve` and every client.
//
// API note (for code that authenticates requests, e.g. the inbox):
//
//   const auth: Authorizer = relay.auth;           // or new Authorizer([...sources])
//   const r = auth.authenticate(req.raw);          // AuthResult
//   if (!r.ok) -> 401 r.detail
//   r.principal: Principal { name, scopes, source, credential }
//   can(r.principal, 'control')                    // scopes: read | emit | control
//
//   More credentials (e.g. an HttpOnly SameSite cookie session):
//     auth.use({
//       kind: 'session',
//       authenticate(req) { undefined: no cookie here; null: a bad cookie (401); else a Principal },
//       isLive(p) { is this session still valid? e.g. auth.isLive(tokenPrincipalItWasOpenedWith) },
//       onChange(fn) { call fn() whenever sessions may have been revoked },
//     });
//     Build its principals with makePrincipal(name, scopes, 'session', sessionKey).
//   auth.onChange(fn): after any source changed (a token revoked), re-check
//     open connections with auth.isLive(principal) and close the dead ones;
//     the relay does this for its own SSE streams and WebSockets.
//
//   Tokens: ensureOwnerToken(home) ($HOOKMAP_HOME/token, 0600), addToken /
//   revokeToken / loadTokens (tokens.json: name, scopes, sha256).
//   Clients: discoverToken({ url, flagToken?, tokenFile?, env }).
//   Servers: new Guard({ bind, allowedHosts, allowedOrigins }) +
//   installGuard(app, guard) + guard.upgrade(req, socket) on upgrades;
//   serverOptions({ tls }) / applyServerLimits(server) for timeouts and the
//   connection cap; assertBindAllowed(host, tokensRequired) before listen.
export { Authorizer, TokenSource, ANONYMOUS, presentedToken, type AuthResult, type CredentialSource, type TokenSourceOptions } from './authorizer.ts';
export { can, makePrincipal, parseScopes, SCOPES, type Principal, type Scope } from './principal.ts';
export {
  addToken,
  ensureOwnerToken,
  generateToken,
  loadTokens,
  OWNER,
  ownerTokenPath,
  readTokenFile,
  revokeToken,
  tokenDigest,
  TokenFileError,
  tokensFilePath,
  type TokenEntry,
} from './tokens.ts';
export { Guard, installGuard, hostOf, isLoopbackHost, refuseRaw, type GuardOptions, type Refusal } from './guard.ts';
export { applyServerLimits, serverOptions, DEFAULT_SERVER_LIMITS, type ServerLimits, type TlsFiles } from './server-limits.ts';
export { assertBindAllowed, BindError, exposureNotice, isLoopbackBind } from './bind.ts';
export { discoverToken, missingTokenHint, urlIsLoopback, ARGV_TOKEN_WARNING, type ClientToken } from './discover.ts';
export { loadTlsFiles, tlsClientOptions } from './tls.ts';
