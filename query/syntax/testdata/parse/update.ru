PREFIX : <http://example.org/ns#>
INSERT DATA { :a :b "c" . GRAPH :g { :d :e _:f } } ;
DELETE DATA { :a :b "c" } ;
WITH :g DELETE { ?s :p ?o } INSERT { ?s :q [ :r ?o ] } USING :g1 USING NAMED :g2 WHERE { ?s :p ?o } ;
DELETE WHERE { ?s :p ?o . GRAPH ?g { ?s :q ?z } } ;
LOAD SILENT <http://example.org/data.ttl> INTO GRAPH :g ;
CLEAR ALL ; DROP SILENT GRAPH :g ; CREATE GRAPH :h ;
ADD :a TO DEFAULT ; MOVE SILENT DEFAULT TO :b ; COPY GRAPH :c TO :d ;
