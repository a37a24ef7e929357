/** `extensionTestsPath` of the second window: the multi-window suite. */
import { runSuite } from './index';

export const run = (): Promise<void> => runSuite('secondWindow');
