package org.dthreads.release;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Node;

/** A pom.xml read as it is written (no inheritance, no interpolation), addressed by slash paths of element names. */
final class Pom {

    private final Element project;

    private Pom(Element project) {
        this.project = project;
    }

    static Pom read(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(false);
            return new Pom(new Element(factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement()));
        } catch (Exception e) {
            throw new AssertionError("cannot read " + file + ": " + e, e);
        }
    }

    /** The trimmed text of the first element at {@code path} under project, or null. */
    String text(String path) {
        return project.text(path);
    }

    List<Element> elements(String path) {
        return project.elements(path);
    }

    record Element(Node node) {
        String text(String path) {
            if (path.equals(".")) {
                return node.getTextContent().trim();
            }
            List<Element> found = elements(path);
            return found.isEmpty() ? null : found.get(0).node.getTextContent().trim();
        }

        List<Element> elements(String path) {
            List<Element> level = List.of(this);
            for (String name : path.split("/")) {
                List<Element> next = new ArrayList<>();
                for (Element e : level) {
                    for (Node c = e.node.getFirstChild(); c != null; c = c.getNextSibling()) {
                        if (c.getNodeType() == Node.ELEMENT_NODE && c.getNodeName().equals(name)) {
                            next.add(new Element(c));
                        }
                    }
                }
                level = next;
            }
            return level;
        }
    }
}
