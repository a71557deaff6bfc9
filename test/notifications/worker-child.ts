// A second notification worker in its own process on the same database file (used by delivery.test.ts):
// prints `ready`, waits for a `go` line on stdin, polls fan-out and due deliveries until stdin
// closes, then prints how many deliveries it claimed.
import path from 'node:path';
import { pino } from 'pino';
import { openStore } from '../../src/store/index.js';
import { createSealer, loadKeyRing } from '../../src/store/sealing.js';
import { createDeliveryService } from '../../src/services/delivery.js';
import { deliverOnce } from '../../src/channels/index.js';
import { urls } from '../channels/fixtures.js';

const [file] = process.argv.slice(2);
let stop = false;
let go: () => void;
const started = new Promise<void>((r) => (go = r));
process.stdin.on('data', (d: Buffer) => d.toString().includes('go') && go()).on('end', () => ((stop = true), go()));
// The channel settings are sealed under the data directory's key, as the daemon wrote them.
const key = { keys: null, file: path.join(path.dirname(file!), 'secret.key'), defaultFile: true };
const store = await openStore(file!, { sealer: createSealer(loadKeyRing(key)) });
const ctx = { smtpUrl: null, smtpFrom: 'x@y', smtpTls: 'verify-if-offered', urls: urls() } as const;
const worker = createDeliveryService({
  store,
  clock: { now: () => new Date() },
  log: pino({ level: 'silent' }),
  deliver: (c, msg, cfg, o) => deliverOnce(c, msg, { config: cfg }, { ...ctx, ...o }),
});
let claimed = 0;
process.stdout.write('ready\n');
await started;
while (!stop) {
  await worker.fanOut();
  claimed += await worker.deliverDue();
  await new Promise((r) => setTimeout(r, 10));
}
await store.close();
process.stdout.write(`claimed=${claimed}\n`);
