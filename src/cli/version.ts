/** The package version, read once from package.json (bundled into the CLI by webpack). */
import packageJson from '../../package.json';

export const PACKAGE_VERSION: string = packageJson.version;
