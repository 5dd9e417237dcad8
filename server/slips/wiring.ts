// Slips assembled for the server: the object store under $SATANG_DATA_DIR/slips/, the
// SlipVerifier (the HTTP provider at SATANG_SLIP_PROVIDER_URL, else the bank simulator
// in-process, mounted at /v1/sim/bank/ — never in production), the verification worker,
// the durable intake and the routes. startServer mounts the routers and exposes the
// worker (tests call worker.drain() to verify everything pending, deterministically).

import { join } from 'node:path';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { SlipVerifier } from '../../core/ports.ts';
import { BankSimulator, SimulatorVerifier } from '../../adapters/slips/bank-sim.ts';
import { HttpSlipVerifier } from '../../adapters/slips/http-verifier.ts';
import { DiskSlipStore, type SlipStore } from '../../adapters/slips/store.ts';
import { SlipWorker } from '../../adapters/slips/worker.ts';
import type { CapabilitySigner } from '../capability.ts';
import { claimUrlOf, type Config } from '../config.ts';
import type { Services } from '../ports.ts';
import { SlipIntake } from './intake.ts';
import { slipUploadLimits } from '../../core/limits.ts';
import { slipContentTypes } from './evidence.ts';
import { slipRoutes } from './routes.ts';
import { simulatorPrefix, simulatorRoutes } from './sim-routes.ts';
import type { Metrics } from '../metrics.ts';

export interface SlipOptions {
  /** The slip object store (tests pass one whose fsync fails); default: DiskSlipStore in the data dir. */
  readonly slipStore?: SlipStore;
  /** 'background' (default) verifies slips as they arrive; 'manual' only on slipWorker.drain(). */
  readonly slipWorker?: 'background' | 'manual';
}

export interface Slips {
  readonly routers: readonly Router[];
  readonly worker: SlipWorker;
  /** The in-process bank simulator, when it is the verifier. */
  readonly simulator?: BankSimulator;
  close(): Promise<void>;
}

export interface SlipParts {
  readonly services: Services;
  readonly config: Config;
  readonly logger: Logger;
  readonly capability: CapabilitySigner;
  /** Times every verification and counts provider failures (server/metrics.ts). */
  readonly metrics?: Metrics;
}

export function startSlips(parts: SlipParts, options: SlipOptions = {}): Slips {
  const { services, config, logger } = parts;
  const store = options.slipStore ?? new DiskSlipStore(join(config.dataDir, 'slips'));
  // The in-process bank is the verifier's only when no provider is named: with one, its
  // transfers would be registered where no verification looks (newcomer audit).
  const mountSimulator = config.env !== 'production' && !config.slipProviderUrl;
  const simulator = mountSimulator ? new BankSimulator() : undefined;
  let verifier: SlipVerifier;
  if (config.slipProviderUrl) {
    verifier = new HttpSlipVerifier(config.slipProviderUrl, {
      onAttemptFailed: (attempt, reason) => {
        parts.metrics?.slipProviderError('attempt_failed');
        logger.warn({ attempt, reason }, 'slip provider call failed');
      },
    });
    logger.info({ slip_provider_url: config.slipProviderUrl }, 'slip verification: the provider at SATANG_SLIP_PROVIDER_URL');
  } else {
    if (!simulator) throw new Error('no slip verifier: SATANG_SLIP_PROVIDER_URL is required when SATANG_ENV=production'); // readConfig refuses this first
    verifier = new SimulatorVerifier(simulator);
    logger.info(`slip verification: no SATANG_SLIP_PROVIDER_URL, so slips are verified by the bank simulator mounted at ${config.baseUrl}${simulatorPrefix}/ (development only)`);
  }
  // Sandbox slips go to the in-process bank where it runs, never to a real provider (the scenario engine answers them there).
  const sandboxVerifier = simulator ? new SimulatorVerifier(simulator) : undefined;
  if (parts.metrics) verifier = parts.metrics.timed(verifier);
  const worker = new SlipWorker({
    host: services.write, store, verifier, ...(sandboxVerifier ? { sandboxVerifier } : {}), mode: options.slipWorker ?? 'background',
    onError: (error, depositId) => logger.error({ err: String(error), deposit_id: depositId }, 'slip verification failed; it will be tried again'),
    onVerified: (v) => {
      // A slip that went to a person because the provider did not answer its rounds (the alert's "unavailable").
      if (v.verdict === 'provider_unavailable') parts.metrics?.slipProviderError('unavailable');
      logger.info({ deposit_id: v.depositId, receipt_id: v.receiptId, verdict: v.verdict, status: v.status, after_settlement: v.afterSettlement }, 'slip verified');
    },
  });
  const intake = new SlipIntake({
    services, store, logger, onReceived: (depositId) => worker.notify(depositId),
    claimUrl: (depositId) => claimUrlOf(config, depositId),
  });
  const routers = [
    slipRoutes({ services, uploadUrl: config.uploadUrl, capability: parts.capability, intake, store, accepts: { maxBytes: slipUploadLimits.evidenceBytesMax, contentTypes: slipContentTypes } }),
    ...(simulator ? [simulatorRoutes(simulator)] : []),
  ];
  return { routers, worker, ...(simulator ? { simulator } : {}), close: () => worker.close() };
}
