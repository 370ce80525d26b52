// The embedded payment simulator's dashboard (every customer's e-mail, cancel buttons) stays on
// loopback when the service listens on every interface (HOST=0.0.0.0), unless
// PAYMENTS_SIMULATOR_HOST asks otherwise. Checked by connecting to the machine's own non-loopback
// address, as another host on the network would.
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { describe, test, type TestContext } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';

const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;

async function dashboardFromOutside(
  context: TestContext,
  env: Record<string, string>,
): Promise<number | string> {
  const t = await buildTestApp({ HOST: '0.0.0.0', ...env });
  context.after(() => t.close());
  const port = new URL(t.composition.simulatorUrl!).port;
  try {
    return (await fetch(`http://${outside}:${port}/`, { signal: AbortSignal.timeout(5_000) }))
      .status;
  } catch (error) {
    return String(((error as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? error);
  }
}

describe(
  `embedded simulator's address (${databaseLabel})`,
  { skip: (outside === undefined && 'no non-loopback IPv4 address here') || onceInTheSuite.skip },
  () => {
    test('with HOST=0.0.0.0 the dashboard is not reachable from another interface', async (context) => {
      assert.equal(await dashboardFromOutside(context, {}), 'ECONNREFUSED');
    });

    test('PAYMENTS_SIMULATOR_HOST=0.0.0.0 opens it, when asked explicitly', async (context) => {
      assert.equal(
        await dashboardFromOutside(context, { PAYMENTS_SIMULATOR_HOST: '0.0.0.0' }),
        200,
      );
    });
  },
);
