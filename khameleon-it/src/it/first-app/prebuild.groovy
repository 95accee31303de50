// Makes this consumer project from docs/first-app.md alone: the page's one complete pom.xml
// (the ```xml block that starts with <?xml or <project) becomes pom.xml, and each ```java block
// becomes src/main/java/<its package>/<its public class>.java. Fails, naming the page, if the page
// has no such pom or names another Khameleon version than this build's.
import java.util.regex.Pattern

def guide = new File(firstAppGuide)
if (!guide.isFile()) {
    throw new IllegalStateException("no " + guide)
}
def text = guide.getText('UTF-8').replace('\r\n', '\n')
def blocks = { String lang ->
    def m = Pattern.compile('(?m)^```' + lang + '\\n(.*?)^```$', Pattern.DOTALL).matcher(text)
    def found = []
    while (m.find()) {
        found << m.group(1)
    }
    found
}

def poms = blocks('xml').findAll { it.trim().startsWith('<?xml') || it.trim().startsWith('<project') }
if (poms.size() != 1) {
    throw new IllegalStateException(guide.toString() + " must quote exactly one complete pom.xml (an ```xml block"
            + " starting with <?xml or <project>); it quotes " + poms.size())
}
def pom = poms[0]
def project = new groovy.xml.XmlSlurper().parseText(pom)
def bom = project.dependencyManagement.dependencies.dependency.find { it.artifactId.text() == 'khameleon-bom' }
if (bom.size() == 0 || bom.version.text() != khameleonVersion) {
    throw new IllegalStateException(guide.toString() + "'s pom.xml must import khameleon-bom " + khameleonVersion
            + " (this build's version); it names " + (bom.size() == 0 ? 'none' : bom.version.text()))
}
new File(basedir, 'pom.xml').setText(pom, 'UTF-8')

def sources = new File(basedir, 'src/main/java')
sources.deleteDir()
def javas = blocks('java')
if (javas.isEmpty()) {
    throw new IllegalStateException(guide.toString() + " quotes no ```java block")
}
javas.each { String java ->
    def pkg = (java =~ /(?m)^package\s+([\w.]+)\s*;/)
    def cls = (java =~ /(?m)^public\s+(?:final\s+|abstract\s+)*(?:class|interface|record|enum)\s+(\w+)/)
    if (!pkg.find() || !cls.find()) {
        throw new IllegalStateException(guide.toString() + ": a ```java block without a package or a public type:\n" + java)
    }
    def file = new File(sources, pkg.group(1).replace('.', '/') + '/' + cls.group(1) + '.java')
    file.parentFile.mkdirs()
    file.setText(java, 'UTF-8')
}
println "first-app: pom.xml and " + javas.size() + " Java file(s) from " + guide
return true
