PREFIX ex: <http://ex/>
INSERT DATA {
  ex:s ex:p ?o .
}
