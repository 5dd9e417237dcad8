// A real nats-server with JetStream for specs and benches: started on a free port with its
// own temporary store directory (never the developer's server on 4222), stopped and
// restarted on the same port and directory (an outage), removed at the end.
//
//   const nats = await NatsServer.start();   // nats.url = nats://127.0.0.1:<port>
//   await nats.stop(); … await nats.restart(); … await nats.remove();

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from './ports.ts';

const binary = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
const readyWithinMs = 10_000;

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ port, host: '127.0.0.1' });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

export class NatsServer {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(readonly port: number, readonly storeDir: string, private readonly config: string | null = null, private readonly password?: string) {}

  /**
   * `denyPublish`: subjects no client may publish to (say `$JS.API.STREAM.DELETE.>`, a
   * stream that cannot be deleted), through a config file whose one user every client
   * connecting without credentials is (no_auth_user). `password`: every client signs in as
   * user satang with it.
   */
  static async start(options: { denyPublish?: readonly string[]; password?: string } = {}): Promise<NatsServer> {
    const storeDir = mkdtempSync(join(tmpdir(), 'satang-nats-'));
    let config: string | null = null;
    if (options.password) {
      // `password`: clients sign in as user satang with it; one that gives nothing is refused (no no_auth_user).
      config = join(storeDir, 'nats.conf');
      writeFileSync(config, `authorization { users: [ { user: satang, password: ${JSON.stringify(options.password)} } ] }\n`);
    } else if (options.denyPublish) {
      config = join(storeDir, 'nats.conf');
      const deny = options.denyPublish.map((subject) => JSON.stringify(subject)).join(', ');
      writeFileSync(config, `authorization { users: [ { user: satang, password: satang, permissions: { publish: { allow: [">"], deny: [${deny}] }, subscribe: { allow: [">"] } } } ] }\nno_auth_user: satang\n`);
    }
    const server = new NatsServer(await freePort(), storeDir, config, options.password);
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts the server (again) on its port and store directory; resolves once JetStream answers. */
  async restart(): Promise<void> {
    if (this.child) return;
    const child = spawn(binary, [...(this.config ? ['-c', this.config] : []), '-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (d) => { this.output += d; });
    child.stderr!.on('data', (d) => { this.output += d; });
    child.once('exit', () => { if (this.child === child) this.child = null; });
    const deadline = Date.now() + readyWithinMs;
    while (!(await accepts(this.port))) {
      if (!this.child) throw new Error(`nats-server exited:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`nats-server did not accept connections within ${readyWithinMs} ms:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await this.waitForJetStream(deadline);
  }

  /** Stops the server (SIGTERM, like an operator would) and waits until it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    this.child = null;
  }

  /** Stops the server and deletes its store directory. */
  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }

  private async waitForJetStream(deadline: number): Promise<void> {
    const nc = await connect({ servers: this.url, noAsyncTraces: true, ...(this.password ? { user: 'satang', pass: this.password } : {}) });
    try {
      for (;;) {
        try {
          await (await nc.jetstreamManager({ timeout: 1000 })).getAccountInfo();
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      await nc.close();
    }
  }
}
