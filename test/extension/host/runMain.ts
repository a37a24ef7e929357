/** `extensionTestsPath` of the first window: the main extension-host suite. */
import { runSuite } from './index';

export const run = (): Promise<void> => runSuite('main');
