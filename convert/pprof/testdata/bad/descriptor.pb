
x.protopkg