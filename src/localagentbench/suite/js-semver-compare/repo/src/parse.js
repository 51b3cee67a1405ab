'use strict';

class VersionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'VersionError';
  }
}

const NUMERIC = /^(0|[1-9]\d*)$/;
const IDENT = /^[0-9A-Za-z-]+$/;

function numericPart(text, what, version) {
  if (!NUMERIC.test(text)) {
    throw new VersionError(`invalid ${what} ${JSON.stringify(text)} in ${JSON.stringify(version)}`);
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new VersionError(`${what} too large in ${JSON.stringify(version)}`);
  }
  return n;
}

/** Parse a SemVer 2.0.0 version string. */
function parse(version) {
  if (typeof version !== 'string') {
    throw new VersionError(`a version is a string, got ${typeof version}`);
  }
  let rest = version;
  let build = [];
  const plus = rest.indexOf('+');
  if (plus >= 0) {
    build = rest.slice(plus + 1).split('.');
    rest = rest.slice(0, plus);
    if (build.some((id) => !IDENT.test(id))) {
      throw new VersionError(`invalid build metadata in ${JSON.stringify(version)}`);
    }
  }
  let prerelease = [];
  const dash = rest.indexOf('-');
  if (dash >= 0) {
    const ids = rest.slice(dash + 1).split('.');
    rest = rest.slice(0, dash);
    prerelease = ids.map((id) => {
      if (!IDENT.test(id)) {
        throw new VersionError(`invalid pre-release in ${JSON.stringify(version)}`);
      }
      if (/^\d+$/.test(id)) return numericPart(id, 'pre-release number', version);
      return id;
    });
  }
  const core = rest.split('.');
  if (core.length !== 3) {
    throw new VersionError(`expected MAJOR.MINOR.PATCH in ${JSON.stringify(version)}`);
  }
  const [major, minor, patch] = core.map((p, i) =>
    numericPart(p, ['major', 'minor', 'patch'][i], version),
  );
  return { major, minor, patch, prerelease, build };
}

module.exports = { parse, VersionError };
