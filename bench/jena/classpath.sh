#!/bin/sh
# Prints the classpath of Debian's libapache-jena-java (Jena 4.5.0) and the
# jars it needs at run time, all from /usr/share/java. Sourced by build.sh
# and run.sh. Only one SLF4J binding (slf4j-nop) is put on the path: several
# bindings and duplicate versioned jars are what break Debian's own scripts.
J=${JENA_JAVA_DIR:-/usr/share/java}
CP=""
for jar in \
  jena-arq jena-core jena-base jena-iri \
  commons-io commons-lang3 commons-codec commons-compress commons-csv \
  dexx.collection guava gson \
  jackson-core jackson-databind jackson-annotations \
  jsonld-java titanium-json-ld jakarta.json-api \
  httpclient httpcore \
  protobuf thrift \
  slf4j-api slf4j-nop
do
  if [ -f "$J/$jar.jar" ]; then
    CP="$CP${CP:+:}$J/$jar.jar"
  else
    echo "classpath.sh: missing $J/$jar.jar" >&2
  fi
done
echo "$CP"
