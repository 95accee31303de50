// Builds the first-app consumer only where it can get the plugin the page's pom.xml adds to what
// the other consumers use: exec-maven-plugin, from the user's local repository or Maven Central.
// Skipped, with the reason, only when it is in neither (offline, or Central unreachable).
def pinned = new File(firstAppGuide).getText('UTF-8') =~ /exec-maven-plugin<\/artifactId>\s*<version>([^<]+)<\/version>/
if (!pinned.find()) {
    return true                         // prebuild.groovy and the build say what is wrong with the page
}
def version = pinned.group(1).trim()
def plugin = new File(userLocalRepository, "org/codehaus/mojo/exec-maven-plugin/${version}/exec-maven-plugin-${version}.jar")
if (plugin.isFile()) {
    return true
}
boolean offline = mavenOffline == 'offline=true'
boolean reachable = false
if (!offline) {
    try {
        new Socket().withCloseable { it.connect(new InetSocketAddress('repo.maven.apache.org', 443), 5000) }
        reachable = true
    } catch (IOException e) {
        // unreachable: fall through to the message
    }
}
if (!reachable) {
    def reason = "[WARNING] khameleon-it first-app SKIPPED: exec-maven-plugin is not in " + plugin +
            " and Maven Central is " + (offline ? 'not consulted (offline)' : 'unreachable') +
            "; build once online to check docs/first-app.md's pom.xml and program"
    println reason                                                      // build.log
    new PrintStream(new FileOutputStream(FileDescriptor.err), true).println(reason)  // the console
}
return reachable
