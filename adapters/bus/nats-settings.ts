// NATS's settings, read from the environment without loading the NATS client (server/config.ts
// checks them with the rest of the configuration, the command line reads them): how
// satang's processes sign in, and the journal stream's replicas. adapters/bus/nats.ts
// connects with them.

import { readFileSync, statSync } from 'node:fs';

/**
 * How satang's processes sign in to NATS, which carries the whole journal (account numbers
 * and names included): SATANG_NATS_USER, with its password in SATANG_NATS_PASSWORD_FILE (a
 * systemd credential: never in the URL or the environment, where `ps e` and the unit show
 * it), and SATANG_NATS_CA_FILE, the CA that signed a tls:// server's certificate. Paths, not
 * the password, so it crosses to the relay's worker thread as data and is read at each
 * connect (a rotated password is taken at the next reconnect).
 */
export interface NatsAuth {
  readonly user?: string;
  readonly passwordFile?: string;
  readonly caFile?: string;
}

/** The sign-in settings in `env`, undefined when there are none. */
export function natsAuthFrom(env: NodeJS.ProcessEnv): NatsAuth | undefined {
  const auth: NatsAuth = {
    ...(env.SATANG_NATS_USER && env.SATANG_NATS_PASSWORD_FILE ? { user: env.SATANG_NATS_USER, passwordFile: env.SATANG_NATS_PASSWORD_FILE } : {}),
    ...(env.SATANG_NATS_CA_FILE ? { caFile: env.SATANG_NATS_CA_FILE } : {}),
  };
  return Object.keys(auth).length === 0 ? undefined : auth;
}

/** What is wrong with the NATS sign-in settings (server/config.ts lists them with the rest); never quotes the password. */
export function natsAuthProblems(env: NodeJS.ProcessEnv, mode: 'development' | 'production'): string[] {
  const problems: string[] = [];
  const user = env.SATANG_NATS_USER, file = env.SATANG_NATS_PASSWORD_FILE;
  if (Boolean(user) !== Boolean(file)) problems.push('SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE go together: the user, and a file holding its password');
  if (file) {
    try {
      if (readFileSync(file, 'utf8').trim() === '') problems.push(`SATANG_NATS_PASSWORD_FILE ${file} is empty`);
      const fileMode = statSync(file).mode & 0o777;
      if (mode === 'production' && (fileMode & 0o077) !== 0) problems.push(`SATANG_NATS_PASSWORD_FILE ${file} may be read by others (mode ${fileMode.toString(8)}): chmod 0600 (or 0400) it`);
    } catch (error) {
      problems.push(`SATANG_NATS_PASSWORD_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (env.SATANG_NATS_CA_FILE) {
    try { readFileSync(env.SATANG_NATS_CA_FILE); } catch (error) { problems.push(`SATANG_NATS_CA_FILE: cannot read ${env.SATANG_NATS_CA_FILE} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`); }
  }
  // nats.js does not sign in with a URL's user info: a URL carrying one was taken and then refused by NATS.
  if (env.SATANG_NATS_URL && env.SATANG_NATS_URL.split(',').some((u) => /^[a-z]+:\/\/[^/]*@/i.test(u.trim()))) {
    problems.push('SATANG_NATS_URL carries a user or a password, which is not used to sign in: give SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE instead (nor is the environment a place for a password)');
  } else if (mode === 'production' && env.SATANG_NATS_URL) {
    if (!user) problems.push('SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE are required with SATANG_NATS_URL when SATANG_ENV=production: NATS carries the whole journal, account numbers and names included (deploy/nats/nats-server.conf signs clients in)');
  }
  return problems;
}

/**
 * Replicas of the journal stream when it is created: SATANG_NATS_REPLICAS (1, 3 or 5;
 * default 1 for a single nats-server; production runs a three-node cluster with 3). Read
 * here because both the API's relay and the projector create the stream, whichever comes
 * first; an existing stream keeps its replicas (change them with `nats stream edit`).
 */
export function journalStreamReplicas(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SATANG_NATS_REPLICAS ?? '1';
  if (raw !== '1' && raw !== '3' && raw !== '5') throw new Error(`SATANG_NATS_REPLICAS must be 1, 3 or 5, not ${raw}`);
  return Number(raw);
}

/**
 * A NATS URL as messages and --json show it: without its user info (`nats://user:PASS@h`,
 * `nats://TOKEN@h` → `nats://h`; a bare TOKEN and a user look alike, so neither is kept),
 * each of a comma-separated list. `text` is the message to clean: the URL wherever it
 * occurs in it (a NATS error may quote it).
 */
export function withoutNatsCredentials(natsUrl: string, text = natsUrl): string {
  const shown = natsUrl.split(',').map((server) => {
    const hostStart = server.includes('://') ? server.indexOf('://') + 3 : 0;
    const at = server.lastIndexOf('@');
    return at < hostStart ? server : server.slice(0, hostStart) + server.slice(at + 1);
  }).join(',');
  return natsUrl === '' ? text : text.replaceAll(natsUrl, shown);
}
