// scripts/satang run as a person runs it, for the CLI specs: a child process in a temporary
// working directory, with the environment given on top of the spec's own; a non-zero exit
// is an answer to read (its code, stdout, stderr), not a throw.

import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
export const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

/** A line of a Node stack trace: what an operator must never be shown instead of the refusal. */
export const stackLine = /^\s+at .+[:(]\d+/m;

export interface Ran { readonly code: number; readonly stdout: string; readonly stderr: string }

export async function satang(args: readonly string[], env: Record<string, string>): Promise<Ran> {
  try {
    const r = await run(satangPath, [...args], { cwd: tmpdir(), env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
