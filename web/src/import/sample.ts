// "Try a sample": a small dump the project makes itself (tests/sample, scripts/make-sample.sh),
// fetched from this page's own origin.

export const SAMPLE_NAME = 'sample.hprof.gz';

export async function fetchSample(): Promise<File> {
  const url = new URL(SAMPLE_NAME, document.baseURI);
  const response = await fetch(url, { credentials: 'omit', cache: 'no-cache' });
  if (!response.ok) throw new Error(`could not load the sample dump (${response.status} ${response.statusText})`);
  const blob = await response.blob();
  return new File([blob], SAMPLE_NAME, { type: 'application/gzip' });
}
