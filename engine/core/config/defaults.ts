// Every default the `up` config file, the flags and the environment share,
// defined once: the up config's schema (engine/app/up-schema.ts), its
// reference page, the relay, the daemons and the CLI read them from here.
// This module imports nothing, so any layer may read it.

/** The one port of `hookmap up` (relay and every hook endpoint) and of a lone `hookmap relay`. */
export const DEFAULT_PORT = 8787;
/** Where `up` and the relay listen unless told otherwise (loopback: nothing is exposed by default). */
export const DEFAULT_HOST = '127.0.0.1';
/** Where shims and clients reach hookmap (HOOKMAP_URL), and the relay a lone daemon emits to (HOOKMAP_RELAY). */
export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;
/** How long a held request waits for an answer when neither the config, the environment nor the descriptor says. */
export const DEFAULT_ATTENTION_TIMEOUT_MS = 55_000;
/** A held request unanswered this long is pushed (at once when no inbox tab is visible). */
export const DEFAULT_PUSH_DELAY_MS = 10_000;
/** The moments pushed unless push.kinds says otherwise (turn_finished is opt-in). */
export const DEFAULT_PUSH_KINDS = ['permission', 'question', 'run_failed', 'idle', 'session_error', 'budget', 'limit'] as const;
/** The Telegram Bot API a channel talks to unless `api_root` names a self-hosted one. */
export const DEFAULT_TELEGRAM_API_ROOT = 'https://api.telegram.org';
/** The JetStream stream and subject prefix of a NATS backplane. */
export const DEFAULT_BACKPLANE_STREAM = 'HOOKMAP';
export const DEFAULT_BACKPLANE_PREFIX = 'hookmap';
/** How long the backplane's stream keeps an event, and JetStream's duplicate window. */
export const DEFAULT_BACKPLANE_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_BACKPLANE_DUPLICATE_WINDOW_MS = 120_000;
/** How long a headless `hookmap run` may run before it is stopped, and how many run at once per agent. */
export const DEFAULT_LAUNCH_TIMEOUT_MS = 30 * 60 * 1000;
/** launch.after_limit: what a session continued after a rate or usage limit is told, and when, if the agent gave no reset time. */
export const DEFAULT_AFTER_LIMIT_PROMPT = 'The rate limit has reset. Continue where you left off.';
export const DEFAULT_AFTER_LIMIT_WAIT_MS = 5 * 60 * 1000;
export const DEFAULT_LAUNCH_MAX_RUNS = 2;
