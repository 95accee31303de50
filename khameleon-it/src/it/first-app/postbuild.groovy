// The program docs/first-app.md quotes ran: it printed the hovered chart's answer in full, then
// the client's metrics, as the page says it does.
def log = new File(basedir, 'build.log').getText('UTF-8')
def full = log =~ /chart \d+: (\d+) of \1 blocks, utility 1\.00/
if (!full.find()) {
    throw new AssertionError("first-app printed no complete answer (\"chart N: 16 of 16 blocks, utility 1.00\"):\n" + log)
}
if (!log.contains('ClientMetrics[registrations=1,')) {
    throw new AssertionError("first-app printed no client metrics:\n" + log)
}
return true
