/**
 * The package version, read once from package.json (webpack bundles it into the extension and
 * the command-line entries). In src/common, below every layer, so that any layer may name it.
 */
import packageJson from '../../package.json';

export const PACKAGE_VERSION: string = packageJson.version;
