import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adaptiveRetry, createGate, driftMonitor, reliabilityProfile } from '../../../src/index.ts'
import { instrument, profileMetrics } from '../../../src/otel/index.ts'
import { scripted } from '../../../src/providers/index.ts'
import { formatTrace, recordTrace, replayTrace, runTrials, serveTrace } from '../../../src/trace/index.ts'
import type { OptionsEntry } from './entry.ts'

const gate = () => createGate({ providers: scripted(['ok']) })
const tracePath = () => join(mkdtempSync(join(tmpdir(), 'rg-entries-')), 'trace.jsonl')
const EMPTY_RESULT = { attempts: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 }

/** The observability entries: OpenTelemetry, the trace recorder and viewer, the drift monitor. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'instrument',
    covers: ['otel:instrument'],
    keys: ['tracerProvider', 'meterProvider', 'captureContent', 'name'],
    call: (options) => instrument(gate(), options as never)(),
  },
  {
    name: 'recordTrace',
    covers: ['trace:recordTrace'],
    keys: ['path', 'append', 'redact', 'now'],
    call: (options) => recordTrace(gate(), { path: tracePath(), ...options } as never).stop(),
  },
  {
    name: 'formatTrace',
    covers: ['trace:formatTrace'],
    keys: ['maxChars'],
    numbers: ['maxChars'],
    call: (options) => formatTrace(EMPTY_RESULT, options as never),
  },
  {
    name: 'replayTrace',
    covers: ['trace:replayTrace'],
    keys: ['config', 'signal'],
    call: (options) => replayTrace([], { config: {}, ...options } as never),
  },
  {
    name: 'runTrials',
    covers: ['trace:runTrials'],
    keys: ['config', 'trials', 'providers', 'signal'],
    numbers: ['trials'],
    call: (options) => runTrials([], { config: {}, trials: 1, providers: () => scripted(['ok']), ...options } as never),
  },
  {
    name: 'serveTrace',
    covers: ['trace:serveTrace'],
    keys: ['port', 'host'],
    numbers: ['port'],
    // Only refused options reach this entry: an accepted call would start a server, closed at once.
    call: async (options) => (await serveTrace(tracePath(), options as never)).close(),
  },
  {
    name: 'reliabilityProfile',
    covers: ['.:reliabilityProfile'],
    keys: ['store', 'keyPrefix', 'bucketMs', 'buckets', 'now'],
    durations: ['bucketMs'],
    numbers: ['buckets'],
    call: (options) => reliabilityProfile(options as never),
  },
  {
    name: 'adaptiveRetry',
    covers: ['.:adaptiveRetry'],
    keys: ['profile', 'maxAttempts', 'baselineAttempts', 'minTrials', 'stopBelow', 'extendAbove', 'classes'],
    numbers: ['maxAttempts', 'baselineAttempts', 'minTrials', 'stopBelow', 'extendAbove'],
    call: (options) => adaptiveRetry({ profile: reliabilityProfile(), ...options } as never),
  },
  {
    name: 'profileMetrics',
    covers: ['otel:profileMetrics'],
    keys: ['meterProvider', 'name'],
    call: (options) => profileMetrics(reliabilityProfile(), options as never)(),
  },
  {
    name: 'driftMonitor',
    covers: ['.:driftMonitor'],
    keys: ['window', 'threshold', 'minRuns'],
    numbers: ['window', 'threshold', 'minRuns'],
    call: (options) => driftMonitor(gate(), { window: 10, threshold: 0.5, ...options } as never).stop(),
  },
  {
    name: 'driftMonitor threshold',
    keys: ['validationFailureRate', 'meanAttempts'],
    numbers: ['validationFailureRate', 'meanAttempts'],
    call: (options) => driftMonitor(gate(), { window: 10, threshold: { validationFailureRate: 0.5, ...options } } as never).stop(),
  },
]
