veintiséis mil ciento cuatro
cincuenta y ocho mil trescientos diez
cuarenta y cuatro mil novecientos sesenta y tres
cuarenta y dos mil noventa y nueve
sesenta y seis mil novecientos cuarenta y cinco
veintisiete mil cuatrocientos veintiocho
noventa y cinco mil ochocientos cuarenta y uno
ocho mil setecientos veintiséis
sesenta y siete mil doscientos veintisiete
sesenta mil ochenta y seis
setenta mil ciento seis
quince mil noventa y cinco
treinta y un mil doscientos sesenta y tres
setenta y ocho mil setecientos cuarenta y nueve
cincuenta y un mil doscientos once
noventa y cuatro mil novecientos cincuenta y cuatro
sesenta y nueve mil sesenta y cinco
ochenta y ocho mil trescientos sesenta y ocho
treinta y un mil setecientos sesenta y siete
ochocientos cuarenta y cuatro
diez mil quinientos sesenta y tres
treinta y cinco mil sesenta y cuatro
treinta y dos mil cuarenta y seis
noventa y nueve mil ochocientos treinta y ocho
dieciocho mil seiscientos sesenta
veinticinco mil ciento cincuenta y uno
diecisiete mil novecientos cuarenta y seis
treinta y seis mil ciento cincuenta y tres
treinta mil seiscientos sesenta y nueve
noventa y dos mil quinientos cuarenta y uno
sesenta y ocho mil trescientos quince
ochenta y cinco mil seiscientos uno
sesenta y cinco mil setecientos cincuenta y cuatro
cincuenta y un mil ciento sesenta y siete
setenta y dos mil ciento noventa y siete
setenta y siete mil trescientos trece
catorce mil ciento ochenta y ocho
treinta y nueve mil seiscientos noventa y cinco
noventa y ocho mil quinientos veintinueve
veintiocho mil setecientos cuarenta y ocho
ochenta y nueve mil cuatrocientos sesenta y cuatro
noventa y dos mil setecientos cuarenta y ocho
sesenta y cuatro mil doscientos sesenta y ocho
sesenta y seis mil cuatrocientos quince
sesenta y ocho mil setecientos noventa y dos
cuarenta y seis mil ciento setenta y uno
noventa y dos mil cincuenta y dos
treinta y ocho mil doscientos noventa y tres
ocho mil trescientos cuatro
ochenta y cinco mil doscientos sesenta y dos
dieciocho mil ciento cincuenta y cinco
quince mil ciento sesenta y tres
ochenta y un mil trescientos veintiuno
diecinueve mil ochocientos setenta
seis mil setecientos dieciocho
noventa y siete mil quinientos sesenta
ochenta mil trescientos ochenta y dos
treinta y un mil trescientos sesenta y ocho
noventa y siete mil ciento treinta y ocho
cincuenta y ocho mil setecientos treinta y cinco
noventa y seis mil ochenta y cinco
setenta y un mil setecientos veintidós
noventa y cinco mil setecientos cuarenta
catorce mil ochocientos setenta y dos
sesenta y cuatro mil cuatrocientos cuarenta y ocho
nueve mil ciento ochenta y ocho
cincuenta y cuatro mil trescientos treinta y seis
veintiséis mil seiscientos noventa y ocho
setenta y un mil seiscientos veinticinco
veinticinco mil doscientos seis
cuarenta y siete mil quinientos cincuenta y seis
cincuenta y cinco mil ciento cuatro
noventa y siete mil seiscientos ochenta y cuatro
cuarenta y seis mil trescientos noventa y cinco
treinta y seis mil ciento ochenta y ocho
nueve mil ciento cincuenta y ocho
sesenta y dos mil ochocientos siete
ochenta y nueve mil trescientos nueve
diez mil sesenta y tres
ochenta y un mil cuatrocientos setenta y seis
ochenta y ocho mil cuatrocientos dos
sesenta y nueve mil doscientos noventa y ocho
cuarenta mil novecientos siete
veintinueve mil quinientos cuarenta y nueve
cuarenta y dos mil ochocientos sesenta y uno
diecinueve mil novecientos noventa y seis
dieciséis mil ciento sesenta y cuatro
treinta y tres mil noventa y ocho
cincuenta mil veintidós
sesenta y seis mil setecientos setenta y uno
setenta y cinco mil trescientos sesenta y dos
setenta y seis mil cuatrocientos veintinueve
noventa y ocho mil doscientos setenta y cinco
noventa mil ochocientos treinta
veintidós mil novecientos veintiséis
cuatro mil seiscientos noventa y cinco
setenta y nueve mil cuatrocientos cincuenta y tres
ochenta y cuatro mil cuatrocientos cuarenta y siete
cincuenta y cuatro mil ciento ochenta y uno
setenta y dos mil doscientos noventa
noventa mil doscientos noventa
diecinueve mil doscientos ochenta y tres
cuarenta y seis mil novecientos setenta y tres
cuarenta y dos mil ochocientos ochenta y cinco
veintidós mil cuatrocientos cuarenta
ocho mil seiscientos ochenta y dos
cincuenta y ocho mil ochocientos cincuenta y uno
noventa y cinco mil trescientos dieciséis
cuarenta y ocho mil cuatrocientos cincuenta y cuatro
veintinueve mil doscientos noventa y tres
veintidós mil quinientos cincuenta
diez mil trescientos veintidós
noventa y seis mil doscientos cincuenta y seis
ochenta y nueve mil ochocientos catorce
ochenta y ocho mil novecientos cincuenta y siete
setenta y tres mil setecientos quince
veinte mil cuatrocientos cuatro
sesenta y tres mil trescientos treinta y cuatro
sesenta mil novecientos treinta y nueve
setenta mil noventa y nueve
cuarenta y nueve mil trescientos setenta y cinco
cuarenta y nueve mil cuatrocientos veinticuatro
sesenta y tres mil setecientos ochenta y dos
ochenta y nueve mil novecientos ochenta y dos
diecinueve mil quinientos trece
diez mil trescientos noventa
treinta y tres mil doscientos noventa y seis
cincuenta y un mil cuatrocientos cincuenta y siete
seis mil novecientos veinte
veinticinco mil nueve
cuarenta mil trescientos ochenta y uno
sesenta y siete mil cuatrocientos diecisiete
noventa y siete mil ochocientos cuarenta
sesenta y tres mil setenta y uno
cuarenta y nueve mil seiscientos noventa y tres
ochenta y ocho mil setecientos ochenta y cuatro
cincuenta y nueve mil doscientos noventa y seis
setenta y dos mil ochenta y ocho
treinta y siete mil doscientos cuarenta y tres
catorce mil ciento cuarenta y siete
diez mil trescientos ochenta y seis
catorce mil trescientos treinta y ocho
dieciséis mil treinta y seis
cuarenta y un mil quinientos cuarenta
cinco mil doscientos dos
noventa y seis mil novecientos seis
treinta y tres mil ochocientos treinta y ocho
noventa y siete mil setecientos ochenta y cinco
noventa y seis mil doscientos veintiséis
noventa y ocho mil setecientos dieciocho
treinta y cuatro mil trescientos noventa y cuatro
treinta y cinco mil seiscientos ochenta y cinco
treinta y dos mil quinientos sesenta y seis
dieciocho mil ciento uno
ochenta y tres mil doscientos sesenta y uno
ochenta y ocho mil cuatrocientos veinte
setenta y nueve mil ciento noventa y cinco
veintiún mil ochocientos sesenta y cuatro
sesenta y un mil doscientos sesenta y tres
veinte mil seiscientos treinta y nueve
setenta y dos mil quinientos noventa y siete
noventa y cuatro mil setenta y ocho
cuarenta y nueve mil diecinueve
diecisiete mil cincuenta y dos
cincuenta y cinco mil cuatrocientos ochenta y tres
setenta y nueve mil novecientos tres
cuarenta y cinco mil quinientos sesenta y seis
trece mil ciento ochenta y nueve
setenta y siete mil setecientos treinta y seis
cincuenta y ocho mil seiscientos noventa y ocho
veintidós mil cincuenta y uno
cuarenta y siete mil nueve
setenta y nueve mil trece
ochenta y nueve mil trescientos sesenta y dos
noventa y cuatro mil trescientos setenta y uno
doce mil cuatrocientos veintiséis
mil cuatrocientos cincuenta y dos
setenta y un mil cuatrocientos noventa y dos
veintiséis mil ciento cuarenta
cuarenta y nueve mil novecientos cuarenta y seis
ochenta y siete mil ciento setenta
ochenta y siete mil ciento noventa y ocho
veintidós mil ciento setenta y siete
veintinueve mil ochenta y siete
veinticuatro mil ochenta y dos
sesenta y seis mil trescientos cuarenta y nueve
setenta y un mil setecientos ochenta y dos
noventa y dos mil doscientos diecisiete
veintisiete mil seiscientos noventa y nueve
ochenta mil veintiséis
treinta y cinco mil veinte
ochenta y cuatro mil cuatrocientos cincuenta y tres
cincuenta y seis mil novecientos noventa y uno
ochenta y tres mil ciento setenta y nueve
veinticinco mil ochocientos cuarenta y cuatro
ochenta y siete mil quinientos
treinta y tres mil seiscientos cuatro
cincuenta y tres mil quinientos veintiocho
cincuenta y cuatro mil quinientos treinta y ocho
seis mil ciento treinta y dos
sesenta y cuatro mil setecientos sesenta y seis
ochenta y tres mil ochocientos veinticuatro
sesenta y cinco mil ciento sesenta y nueve
ochenta y seis mil ochocientos cincuenta
cuarenta y dos mil cuatrocientos sesenta y siete
once mil setecientos ochenta y cuatro
once mil setecientos cuarenta y seis
noventa y cinco mil quinientos noventa y siete
treinta y cinco mil cincuenta y tres
treinta y seis mil ciento ochenta y dos
cincuenta y seis mil cuatrocientos cuarenta y cuatro
cuarenta y un mil setecientos treinta
ochenta y dos mil cuatrocientos cuarenta
veintisiete mil setecientos sesenta y uno
sesenta y tres mil ciento sesenta y cuatro
seis mil novecientos quince
cuatro mil ochocientos sesenta y seis
sesenta y siete mil quinientos noventa y ocho
siete mil cuatrocientos cuatro
cuarenta y ocho mil cuatrocientos setenta y siete
nueve mil seiscientos seis
treinta y siete mil nueve
sesenta y tres mil doscientos
ocho mil quinientos setenta y tres
quince mil cuatrocientos sesenta y ocho
veinte mil doscientos cincuenta y cuatro
cuatro mil ochocientos treinta y dos
setenta y nueve mil doscientos sesenta y ocho
once mil setecientos ochenta y siete
noventa y tres mil novecientos diecisiete
sesenta y cuatro mil setecientos ochenta y ocho
sesenta y cuatro mil setecientos cincuenta y uno
dos mil ochocientos dieciocho
veinticuatro mil ochocientos cincuenta y ocho
treinta y seis mil quinientos noventa y cuatro
cincuenta y nueve mil ochenta y siete
setenta y cuatro mil doscientos cuarenta y siete
setenta y seis mil quinientos cuarenta y nueve
sesenta y siete mil tres
sesenta y ocho mil seiscientos veinticinco
sesenta y ocho mil trescientos doce
cuarenta y cinco mil ciento setenta y tres
noventa y seis mil cuarenta y seis
veintiséis mil quinientos cincuenta y dos
cuarenta y cinco mil trescientos setenta y ocho
cuarenta mil cincuenta y nueve
cincuenta y cuatro mil seiscientos ochenta y siete
treinta y ocho mil trescientos cincuenta y dos
cuarenta y ocho mil seiscientos quince
noventa y seis mil sesenta y cuatro
veintiséis mil ciento noventa y cuatro
dos mil seiscientos ochenta y uno
mil ochocientos noventa y nueve
ochenta mil seiscientos treinta y uno
nueve mil setecientos noventa y ocho
noventa y cinco mil ochenta
cincuenta y nueve mil seiscientos cincuenta y seis
noventa y siete mil ciento cincuenta y siete
setenta y siete mil trescientos veintinueve
setecientos dieciocho
doce mil setecientos noventa y seis
veintiocho mil novecientos cuarenta y tres
cuarenta mil cuatrocientos sesenta y cinco
mil noventa y seis
cuarenta y nueve mil trescientos ochenta y dos
veintiún mil setecientos tres
ochenta y seis mil cuarenta y siete
veinticuatro mil novecientos veintisiete
noventa y ocho mil cuatrocientos siete
siete mil trescientos sesenta y siete
sesenta y un mil setecientos uno
setenta y cinco mil novecientos treinta y nueve
veintiocho mil cuatrocientos cincuenta y seis
sesenta y ocho mil ochocientos setenta y seis
cuarenta y nueve mil cuatrocientos sesenta
dieciocho mil quinientos treinta y cuatro
sesenta y ocho mil dos
treinta y seis mil ochocientos noventa y seis
setenta y nueve mil setecientos treinta y seis
setenta mil quinientos dieciséis
cuarenta y siete mil trescientos siete
quince mil cuatrocientos cuarenta y uno
veintinueve mil ciento veintinueve
noventa y siete mil trece
veintiséis mil novecientos cuarenta y uno
ochenta y seis mil doscientos cuarenta y siete
sesenta y ocho mil ciento ochenta y nueve
veinte mil quinientos cincuenta y siete
cuarenta y ocho mil doscientos noventa y nueve
nueve mil setenta y cuatro
diecinueve mil ciento sesenta y seis
setenta y cinco mil ciento treinta y seis
sesenta y dos mil sesenta y cuatro
catorce mil quinientos siete
ocho mil ochenta y siete
treinta y dos mil cuatrocientos ochenta y nueve
treinta y ocho mil doscientos cinco
ochenta y un mil quinientos sesenta y dos
sesenta mil ciento cuarenta y dos
ochenta y tres mil quinientos veintinueve
noventa mil ochocientos cuarenta y tres
cincuenta y ocho mil cuarenta y uno
once mil trescientos sesenta y dos
treinta y seis mil ochenta y dos
quince mil trescientos cincuenta y tres
veintinueve mil ochocientos veintiocho
dieciocho mil quinientos noventa y uno
treinta y cinco mil cuatrocientos ochenta y siete
setenta y un mil ochocientos once
treinta y cuatro mil cuatrocientos cuarenta y seis
diez mil seiscientos ochenta y siete
cincuenta y seis mil setecientos cuarenta y uno
once mil trescientos ochenta y tres
veintiún mil seiscientos noventa y nueve
cuarenta mil cuarenta y dos
cincuenta y ocho mil ochocientos setenta
sesenta y tres mil ochocientos veintinueve
cincuenta y tres mil cuatrocientos ochenta y cuatro
ochenta y siete mil doscientos veintisiete
trescientos veintitrés
noventa y nueve mil trescientos sesenta y seis
setenta y seis mil ciento noventa y cinco
diecinueve mil ciento cuarenta y cinco
sesenta y un mil ochocientos cuarenta y tres
veintiún mil trescientos cincuenta y seis
cincuenta y cuatro mil seiscientos cincuenta y nueve
cinco mil doscientos cuarenta y tres
ochenta y tres mil setecientos ochenta
ochenta y seis mil trescientos dieciocho
setenta y cinco mil cuatrocientos noventa
trece mil trescientos setenta y cinco
sesenta y cuatro mil ochocientos ochenta y dos
setenta y siete mil seiscientos veintidós
tres mil treinta y nueve
cuarenta y ocho mil quinientos treinta y cuatro
cuarenta y tres mil ciento veintiuno
treinta y dos mil ciento noventa y cuatro
cincuenta y siete mil ochenta
cuarenta mil trescientos cincuenta y siete
cincuenta y ocho mil cuatrocientos once
sesenta y cuatro mil novecientos ochenta y seis
cuarenta y dos mil cuatrocientos setenta y dos
veintidós mil cuatrocientos diecinueve
noventa y cinco mil doscientos treinta y dos
treinta mil seiscientos sesenta y ocho
cincuenta y dos mil cuatrocientos tres
sesenta y nueve mil setecientos treinta
setenta y nueve mil cuarenta y seis
trece mil quinientos
cincuenta y cinco mil novecientos trece
dieciocho mil novecientos setenta
ochenta y dos mil cuarenta y cinco
treinta y nueve mil ciento noventa y siete
veinticinco mil cuatrocientos cuarenta y seis
cuarenta y seis mil ochocientos dos
sesenta y un mil doscientos sesenta y nueve
sesenta y cuatro mil setecientos veintidós
setenta y tres mil ciento veintiséis
ocho mil doscientos ochenta
seis mil cuatrocientos ochenta y tres
veintiocho mil doscientos treinta y uno
sesenta y dos mil doscientos noventa y cuatro
tres mil seiscientos treinta y nueve
ochenta y tres mil novecientos siete
setenta y seis mil novecientos veinticinco
ochenta y tres mil doscientos noventa y uno
sesenta mil seiscientos noventa y ocho
noventa y nueve mil quinientos veinticinco
cinco mil trescientos veintidós
noventa mil ochocientos veintitrés
siete mil ochocientos once
ochenta y un mil ochocientos cincuenta y nueve
treinta y cinco mil cuatrocientos doce
ochenta y cinco mil setecientos setenta y nueve
veintinueve mil quinientos cincuenta
sesenta y siete mil ochocientos sesenta y tres
treinta y seis mil quinientos trece
treinta y cinco mil seiscientos trece
veintinueve mil setecientos sesenta y uno
treinta y ocho mil cinco
cuarenta y ocho mil trescientos veinticuatro
setenta y dos mil seiscientos setenta y seis
veintiséis mil trescientos veintitrés
treinta y ocho mil setecientos ochenta y siete
diecisiete mil cuatrocientos diecinueve
dos mil setenta y nueve
veintisiete mil quinientos ochenta y cuatro
ochenta y cuatro mil setecientos ochenta y seis
noventa y seis mil seiscientos cincuenta y nueve
noventa y un mil ciento treinta y dos
cuarenta y dos mil setecientos sesenta y ocho
cincuenta y tres mil setecientos cuarenta y cinco
setenta y un mil quinientos treinta y nueve
treinta y siete mil setecientos cincuenta y ocho
setenta y dos mil seiscientos sesenta y seis
dos mil novecientos treinta y seis
sesenta y nueve mil ciento ochenta y tres
sesenta y seis mil ochocientos sesenta y dos
veinte mil seiscientos noventa y dos
cuarenta y dos mil seiscientos sesenta y cuatro
doscientos ochenta y tres
noventa y tres mil doscientos veinte
sesenta y ocho mil ciento sesenta y ocho
treinta y ocho mil novecientos treinta y tres
dieciocho mil seiscientos setenta y siete
veintiún mil quinientos cuarenta y ocho
cincuenta y cinco mil doscientos treinta y tres
treinta y nueve mil setecientos cuarenta y dos
veintiocho mil seiscientos veintiocho
veinte mil cuarenta y ocho
cincuenta y cinco mil novecientos treinta y uno
cuarenta mil novecientos
setenta y dos mil ciento cincuenta y dos
dieciséis mil cuatrocientos cinco
cuarenta y ocho mil quinientos cuarenta y siete
ocho mil cuatrocientos sesenta y tres
cuarenta y nueve mil trescientos treinta y dos
veinticuatro mil novecientos cincuenta y cinco
ochenta y dos mil trescientos cuarenta y siete
noventa y siete mil noventa y cinco
cincuenta y un mil novecientos setenta y siete
setenta y siete mil cuatrocientos veinticuatro
ocho mil uno
treinta y nueve mil ciento ochenta y dos
once mil setecientos veinticuatro
treinta mil ochenta
cincuenta y tres mil seiscientos nueve
dieciséis mil setenta
treinta y cinco mil ciento setenta y ocho
trece mil veinticinco
siete mil cuatrocientos catorce
veintiocho mil setecientos seis
cuarenta y cuatro mil setecientos cuarenta y siete
noventa y dos mil novecientos noventa y siete
tres mil novecientos cincuenta y seis
treinta y tres mil trescientos once
setenta y cuatro mil novecientos treinta y uno
diecinueve mil setecientos sesenta y uno
ochenta y siete mil quinientos cincuenta
cincuenta mil ciento treinta y uno
dieciocho mil ochocientos setenta y siete
ochenta y siete mil ciento setenta y siete
veinticinco mil ciento catorce
noventa y un mil trescientos treinta y cuatro
setenta y tres mil novecientos treinta y siete
diez mil cuatrocientos treinta y tres
cuarenta y cuatro mil ciento setenta y nueve
setenta y ocho mil seiscientos cuarenta y dos
treinta y nueve mil doscientos treinta y dos
setenta mil trescientos cincuenta y tres
cuarenta y ocho mil trescientos cuarenta y nueve
veintiséis mil ochocientos diecisiete
cuatro mil quinientos treinta y ocho
noventa y un mil ochenta y siete
setenta mil novecientos noventa y siete
veintisiete mil doscientos once
cuatro mil cuarenta y cinco
veintisiete mil noventa y tres
noventa y seis mil ochocientos dos
sesenta y cuatro mil setecientos cincuenta y cuatro
noventa y un mil ochocientos cincuenta
noventa mil ciento veintidós
setenta y nueve mil ochocientos sesenta y dos
treinta y cinco mil setecientos treinta
treinta y nueve mil cincuenta y cinco
sesenta y un mil ciento cincuenta y siete
cuarenta y dos mil setecientos ochenta y siete
noventa y nueve mil seiscientos setenta
veintisiete mil setecientos treinta y cuatro
sesenta y un mil quinientos noventa y cuatro
noventa y seis mil doscientos setenta y cinco
cincuenta y un mil cuatrocientos setenta y dos
veinte mil doscientos sesenta y seis
quince mil ochocientos setenta y tres
dieciocho mil seiscientos noventa y nueve
treinta y siete mil ochocientos cincuenta y cuatro
setenta mil seiscientos ochenta
ochenta y cuatro mil seiscientos veintisiete
noventa y tres mil seiscientos cinco
catorce mil doscientos ochenta y tres
setenta y seis mil ciento veintisiete
ochenta y cinco mil seiscientos cuarenta y nueve
treinta y nueve mil doscientos treinta y cinco
dieciséis mil seiscientos setenta y tres
cincuenta y cuatro mil trescientos veintinueve
treinta y ocho mil cuatrocientos setenta y dos
noventa y cuatro mil novecientos setenta y siete
veinte mil setecientos trece
setenta y ocho mil setecientos veintiocho
setenta y nueve mil setenta y uno
cinco mil ochocientos ochenta y uno
ochenta y cuatro mil doscientos veintisiete
cuarenta y seis mil quinientos
setenta y nueve mil quinientos cuatro
noventa y ocho mil quinientos diecinueve
ochenta mil trescientos diecisiete
ochenta y nueve mil noventa y seis
cuarenta y un mil dieciséis
cuarenta y seis mil doscientos setenta y ocho
catorce mil ciento seis
treinta y siete mil setecientos ochenta y uno
ochenta y nueve mil trescientos noventa y cuatro
cincuenta y cinco mil ciento cuarenta y seis
cuarenta mil cuarenta y seis
cinco mil trescientos setenta y seis
veinticuatro mil ciento noventa
diecisiete mil cuatrocientos treinta y dos
treinta y cinco mil cuatrocientos cincuenta
setenta y nueve mil ciento diecinueve
veintiuno
cuarenta y tres mil ciento noventa y tres
siete mil trescientos cincuenta y uno
sesenta y siete mil seiscientos ochenta y dos
ochenta y dos mil doscientos treinta y seis
veintitrés mil ochocientos sesenta y tres
ochenta y nueve mil setecientos noventa y seis
setenta y cinco mil seiscientos quince
sesenta y nueve mil seiscientos noventa y tres
mil trescientos veintiocho
cuarenta y cinco mil ciento noventa
ochenta y seis mil doscientos cinco
cincuenta y seis mil doscientos
setenta y cuatro mil quinientos sesenta
noventa y siete mil quinientos setenta
diecinueve mil novecientos treinta y tres
treinta y cuatro mil cuatrocientos dos
cincuenta y un mil setecientos sesenta y ocho
noventa y ocho mil seiscientos cincuenta y nueve
dos mil cinco
cincuenta y tres mil trescientos cinco
veintiséis mil cuatrocientos treinta y tres
sesenta y dos mil ochocientos ochenta y tres
seis mil ochocientos ochenta y cinco
cincuenta mil seiscientos treinta y uno
setenta y cuatro mil seiscientos sesenta y uno
treinta y un mil setecientos siete
veintitrés mil setecientos diecisiete
dieciocho mil cuatrocientos veintiocho
ocho mil ochocientos noventa y tres
setenta y un mil ochocientos sesenta y dos
setenta y nueve mil doscientos setenta y siete
sesenta y tres mil quinientos veintinueve
setenta y siete mil seiscientos noventa y ocho
veinte mil ochocientos sesenta
noventa y dos mil setecientos veinticuatro
veinticinco mil novecientos treinta y siete
veintinueve mil setecientos noventa
cinco mil seiscientos
noventa y dos mil ciento noventa
sesenta y ocho mil ochocientos treinta y nueve
noventa y un mil ochocientos ochenta y uno
catorce mil quinientos sesenta y tres
ochenta y seis mil quinientos setenta y siete
sesenta y cinco mil novecientos treinta y uno
setenta y cuatro mil trescientos ochenta y uno
cuarenta y ocho mil sesenta y cuatro
cinco mil ciento ochenta y uno
cuarenta y siete mil ochocientos cuarenta y cuatro
sesenta y cinco mil cuatrocientos cuarenta y siete
treinta y tres mil quinientos ochenta y cinco
ochenta y nueve mil ochocientos nueve
ochenta y cinco mil doscientos diecinueve
cincuenta y ocho mil quinientos cuarenta y cuatro
setenta y dos mil setecientos ochenta y seis
ocho mil trescientos noventa y siete
dos mil ciento cincuenta y seis
treinta y dos mil ochocientos
cincuenta y dos mil ciento noventa y cuatro
ochenta y nueve mil novecientos veinte
cincuenta mil noventa y siete
veintinueve mil setecientos cuarenta y seis
catorce mil quinientos treinta y tres
sesenta y nueve mil doscientos ochenta y cinco
catorce mil tres
cincuenta y siete mil novecientos noventa y uno
noventa y ocho mil cuatrocientos treinta
noventa mil ciento sesenta y tres
veintinueve mil trescientos ochenta y nueve
sesenta mil novecientos diecinueve
cuarenta mil doce
veintisiete mil ciento cuatro
setecientos cincuenta y dos
noventa y dos mil seiscientos cuatro
cincuenta y cinco mil setecientos veintiuno
ochenta mil quinientos siete
cuarenta y seis mil trescientos ochenta y ocho
cuarenta y seis mil trescientos seis
quince mil novecientos noventa y nueve
sesenta y dos mil quinientos dieciocho
veintiséis mil ciento setenta y cuatro
cincuenta y siete mil trescientos noventa y cinco
setenta y siete mil noventa y ocho
sesenta y tres mil novecientos siete
cuarenta y cinco mil setenta y tres
noventa y seis mil doscientos ochenta y uno
ochenta y ocho mil setecientos cuarenta y siete
noventa y un mil cincuenta y ocho
sesenta y un mil ciento ochenta y uno
sesenta y cuatro mil ochocientos nueve
treinta y tres mil cuatrocientos diez
setenta y cinco mil quinientos setenta y ocho
ochenta y tres mil novecientos uno
diecisiete mil setecientos diecinueve
cincuenta y siete mil cuatrocientos dieciséis
ochenta y siete mil quinientos treinta y cuatro
treinta y siete mil trescientos cuarenta y cuatro
trece mil cuatrocientos siete
treinta y seis mil novecientos diez
sesenta y dos mil quinientos cincuenta y cinco
setenta y tres mil trescientos cincuenta y tres
veintiocho mil seiscientos setenta y cuatro
ochenta y cinco mil trescientos cuarenta y uno
cuarenta y un mil trescientos setenta y cuatro
veintisiete mil ciento setenta y nueve
treinta y ocho mil ciento treinta y uno
noventa y un mil quinientos setenta y uno
noventa y ocho mil ochocientos setenta y nueve
cuatro mil cuatrocientos ochenta y dos
ochenta y cinco mil novecientos sesenta y dos
doce mil quinientos veinte
cuarenta mil ciento cincuenta
ocho mil trescientos cincuenta y dos
treinta y tres mil quinientos cincuenta y seis
siete mil ciento setenta y nueve
noventa y cuatro mil doscientos ochenta y dos
treinta y tres mil doscientos sesenta y dos
treinta y tres mil veintinueve
cincuenta y dos mil doscientos cincuenta y ocho
siete mil novecientos sesenta y ocho
ochenta y cuatro mil quinientos veinticinco
cincuenta y cuatro mil quinientos cincuenta y uno
cincuenta y cuatro mil veinticuatro
treinta y siete mil sesenta y tres
treinta y dos mil seiscientos cincuenta y seis
noventa y un mil setecientos setenta y dos
treinta y tres mil novecientos cuarenta y nueve
setenta y siete mil cuatrocientos tres
seiscientos ochenta y cinco
noventa y ocho mil ciento noventa y tres
sesenta y cinco mil seiscientos treinta y siete
diecisiete mil trescientos veintitrés
veintisiete mil ciento ochenta y seis
noventa y dos mil ochocientos trece
ochenta y un mil novecientos cincuenta y siete
dieciséis mil setecientos cuarenta y nueve
veintinueve mil ciento ochenta y seis
cuarenta y un mil novecientos sesenta y cuatro
sesenta y un mil doscientos noventa y seis
noventa y seis mil cuarenta y nueve
noventa y cinco mil ciento treinta y ocho
siete mil novecientos diez
cincuenta y cuatro mil ciento doce
treinta y cinco mil trescientos sesenta y ocho
ochenta y un mil setecientos veinticuatro
cincuenta y tres mil ochocientos noventa y dos
sesenta mil cuatrocientos ochenta y siete
sesenta y cuatro mil setenta y tres
cuarenta y dos mil ochocientos ochenta y uno
treinta y un mil seiscientos cincuenta y dos
ochenta y un mil cuatrocientos setenta y cuatro
doscientos cincuenta y siete
cincuenta y cuatro mil trescientos sesenta y cuatro
ochenta y un mil setecientos noventa y dos
seis mil quinientos treinta y cinco
setenta y tres mil quinientos setenta y siete
sesenta y nueve mil setecientos cuarenta y seis
cuarenta y cinco mil ciento cuarenta y nueve
cuatro mil novecientos noventa y uno
cincuenta y ocho mil trescientos cinco
treinta y un mil quinientos ochenta y cinco
ochenta y ocho mil seiscientos
treinta y cuatro mil setecientos setenta y dos
veintiocho mil cuarenta y tres
cuarenta mil doscientos treinta y cinco
dos mil quinientos veinte
noventa y cuatro mil trescientos once
cuarenta y tres mil seiscientos noventa y seis
cincuenta y seis mil ciento cincuenta y siete
sesenta y ocho mil quinientos cincuenta y dos
diecinueve mil cuatrocientos cuarenta y uno
noventa y cinco mil novecientos sesenta y uno
veintisiete mil novecientos sesenta y dos
treinta y cinco mil cuatrocientos treinta y siete
ocho mil trescientos ochenta y siete
cuarenta y nueve mil doscientos setenta y siete
cuarenta y dos mil novecientos dieciséis
cuarenta y cuatro mil seiscientos setenta y tres
ochenta y cinco mil quinientos veinte
cincuenta y seis mil cuarenta y cuatro
dos mil trescientos treinta y tres
quince mil doscientos veintiséis
dieciséis mil doscientos setenta y uno
cincuenta y un mil cuatro
seis mil quinientos sesenta y cuatro
mil trescientos cincuenta y nueve
cincuenta y un mil novecientos noventa
sesenta mil setenta y ocho
noventa y seis mil trescientos veintiocho
setenta y ocho mil novecientos dos
treinta y tres mil novecientos noventa
once mil setenta y seis
ochenta mil setecientos veintiuno
ochenta y un mil seiscientos veinticinco
treinta y cinco mil novecientos cincuenta y siete
veintiún mil novecientos cuarenta y cuatro
treinta y tres mil ochocientos
cuarenta y nueve mil ochocientos cincuenta y uno
treinta y siete mil ochocientos treinta y dos
setenta y nueve mil novecientos seis
dieciocho mil trescientos ochenta y siete
cuarenta y tres mil trescientos treinta y seis
cincuenta y ocho mil novecientos ochenta y siete
veinticuatro mil ochocientos quince
mil doscientos noventa y cuatro
noventa y tres mil cincuenta y tres
cuarenta y cinco mil doscientos ochenta y cuatro
cuatro mil novecientos tres
cincuenta y cinco mil cuatrocientos ocho
veintidós mil
mil trescientos noventa y uno
treinta mil trescientos veinte
cincuenta y cinco mil ciento treinta y nueve
diecinueve mil ciento cuatro
sesenta y dos mil setecientos setenta y tres
veinticinco mil setecientos ochenta y nueve
cincuenta y ocho mil setecientos cuarenta y cinco
veinticinco mil ciento setenta y uno
setenta y un mil cuatrocientos doce
diecisiete mil sesenta y cuatro
cuarenta y cinco mil ochocientos treinta y cinco
noventa y cuatro mil ochocientos treinta y uno
quince mil novecientos treinta y siete
ochenta y ocho mil setecientos cuarenta y nueve
doscientos sesenta y cinco
cinco mil seiscientos once
sesenta y seis mil novecientos seis
setenta y cinco mil cuatrocientos setenta
cincuenta mil ochocientos veintidós
cuarenta y dos mil doscientos setenta y dos
doce mil trescientos veinticinco
quince mil ciento cincuenta y nueve
treinta mil cuatrocientos ochenta y seis
seis mil quinientos cincuenta y nueve
sesenta y tres mil seiscientos sesenta y siete
sesenta y siete mil cuatrocientos treinta y ocho
setenta y tres mil doscientos setenta y ocho
cuarenta y ocho mil setecientos veintitrés
seis mil doscientos cincuenta
veintiséis mil ochocientos tres
ochenta y cinco mil ciento cincuenta y siete
quince mil novecientos siete
veintiocho mil novecientos diecinueve
ochenta y nueve mil veintiuno
ochenta y dos mil cuatrocientos veintiséis
treinta y siete mil cincuenta
cuarenta y tres mil doscientos cuarenta y tres
treinta y dos mil ochocientos cuarenta y uno
sesenta y nueve mil cuatrocientos dos
trece mil setecientos cincuenta y cinco
cuarenta y seis mil quinientos treinta y siete
catorce mil novecientos cincuenta y uno
veinticinco mil trescientos treinta y cuatro
cuarenta y un mil novecientos noventa y uno
cincuenta y cinco mil catorce
cuarenta y ocho mil seiscientos treinta y seis
cinco mil quinientos cuarenta y uno
noventa y siete mil ochenta y tres
cincuenta y cuatro mil doscientos veintiocho
noventa y nueve mil novecientos sesenta y uno
cincuenta y tres mil once
veintitrés mil seiscientos ochenta y ocho
cincuenta y ocho mil quinientos treinta y cuatro
noventa mil seiscientos setenta y siete
setenta y cinco mil ciento treinta y nueve
cuatro mil cuatrocientos cincuenta y ocho
treinta y siete mil ochocientos cuarenta y ocho
sesenta y cinco mil setecientos noventa y tres
cuarenta y nueve mil novecientos veinticuatro
sesenta y cuatro mil ciento noventa y cuatro
cincuenta y tres mil setenta y dos
treinta y tres mil quinientos veintiocho
noventa y dos mil ciento veintiuno
cincuenta y nueve mil trescientos noventa y nueve
cuarenta y cinco mil cuatrocientos veintiocho
ochenta y ocho mil ciento ochenta y cuatro
noventa y cuatro mil trescientos doce
setenta y siete mil trescientos treinta y siete
sesenta y cuatro mil doscientos cincuenta y siete
setenta y nueve mil trescientos trece
ochenta mil doscientos sesenta y siete
noventa y cinco mil ciento quince
veinticinco mil ochocientos treinta y seis
cinco mil cuatrocientos sesenta y cinco
diecinueve mil ciento ochenta y dos
ochenta y tres mil trescientos noventa
sesenta y seis mil setecientos treinta y cuatro
ochenta y nueve mil ochocientos treinta y seis
treinta y ocho mil ciento cincuenta y ocho
veintiséis mil ciento trece
dieciocho mil ochocientos diez
sesenta y nueve mil quinientos noventa
setenta y seis mil novecientos quince
sesenta y cinco mil doscientos uno
ochenta y tres mil cuatrocientos cuarenta y cuatro
veinte mil noventa y cuatro
ochenta y ocho mil novecientos treinta y cuatro
sesenta y cuatro mil novecientos veintisiete
sesenta y nueve mil quinientos cincuenta y tres
setenta y un mil quinientos ochenta
cincuenta mil ciento sesenta y nueve
catorce mil seiscientos sesenta y nueve
ochenta y siete mil ciento veintinueve
setenta y cinco mil novecientos setenta
setenta y cinco mil ochocientos tres
noventa y cuatro mil cuarenta y seis
ochenta y nueve mil quinientos sesenta
trece mil trescientos cuatro
diecisiete mil trescientos treinta y tres
noventa y cinco mil trece
treinta y siete mil seiscientos sesenta y cuatro
sesenta y nueve mil setecientos veinticuatro
cincuenta y cuatro mil ciento veintiséis
treinta y un mil cuatrocientos treinta y tres
cincuenta y seis mil cincuenta
noventa y tres mil novecientos doce
noventa mil novecientos catorce
setenta y tres mil
cincuenta y tres mil quinientos diecisiete
diez mil setecientos sesenta y nueve
cuarenta y ocho mil doscientos cuarenta y uno
sesenta y siete mil novecientos noventa
sesenta y dos mil novecientos sesenta y siete
dieciocho mil cuatrocientos noventa y cuatro
sesenta y dos mil trescientos cincuenta y seis
noventa y un mil ciento cincuenta y siete
once mil diecinueve
cincuenta mil seiscientos noventa
treinta y seis mil quinientos nueve
treinta y nueve mil setecientos cuatro
cuarenta mil sesenta y cuatro
setenta y seis mil setecientos setenta y siete
sesenta y un mil novecientos uno
setenta mil trescientos ocho
mil doscientos treinta
dieciocho mil ochenta y seis
ochenta y cuatro mil ochocientos cincuenta y dos
trece mil setecientos veinticinco
cuarenta y dos mil doscientos sesenta y siete
cincuenta y siete mil seiscientos veintiuno
cuarenta mil seiscientos dieciséis
cuarenta y seis mil seiscientos noventa y cinco
setenta y seis mil seiscientos sesenta y cuatro
veintidós
setenta y cinco mil novecientos cincuenta y cinco
veintisiete mil ochocientos sesenta y cuatro
setenta y un mil doscientos cincuenta y ocho
cuarenta y dos mil doscientos diecisiete
cincuenta y un mil ciento once
treinta y ocho mil seiscientos siete
ochenta y seis mil cuarenta y dos
setenta y seis mil trescientos noventa y tres
treinta y seis mil ciento veintinueve
dos mil ochocientos cuarenta y seis
veinticinco mil cuatrocientos sesenta y tres
sesenta y seis mil quinientos ocho
ochenta y ocho mil novecientos noventa y nueve
setenta y un mil quinientos nueve
sesenta y seis mil setecientos cuarenta
ochenta y dos mil ciento noventa y ocho
veinticuatro mil trescientos dieciséis
cincuenta y nueve mil novecientos noventa y cinco
cuarenta y nueve mil treinta y dos
cuarenta y seis mil ciento setenta y cuatro
veintiún mil ochocientos noventa y seis
cincuenta y un mil doscientos ochenta y dos
veintinueve mil seiscientos ochenta y seis
ochenta y cinco mil ciento noventa y seis
cuarenta y seis mil cuatrocientos diecisiete
treinta y tres mil ochocientos cuarenta y nueve
veintiún mil novecientos cincuenta y cinco
treinta y cuatro mil seiscientos cuarenta y dos
catorce mil trescientos once
sesenta y cinco mil ochocientos sesenta y tres
tres mil ochocientos diecinueve
setenta mil cuarenta y cinco
cincuenta y cinco mil seiscientos seis
nueve mil quinientos veintinueve
diez mil ochocientos veinte
veintiocho mil seiscientos sesenta y ocho
ochenta y un mil quinientos ochenta y uno
sesenta y dos mil ochenta y uno
sesenta y cuatro mil trescientos cincuenta y dos
noventa y cuatro mil ochocientos sesenta y uno
cuatro mil cuatrocientos cincuenta
cuarenta y tres mil ciento cincuenta y siete
noventa y cinco mil seiscientos cincuenta y cinco
setenta y cinco mil noventa y seis
noventa y ocho mil seiscientos setenta
sesenta y siete mil novecientos noventa y seis
doce mil novecientos dieciocho
treinta mil cuatrocientos dieciséis
setenta y un mil once
cincuenta y dos mil quinientos noventa y tres
setenta y cuatro mil ochocientos ochenta y nueve
cuarenta y ocho mil doscientos diecisiete
treinta y siete mil trescientos cincuenta y siete
ochenta y dos mil dieciséis
treinta y tres mil ciento sesenta y dos
noventa y un mil doscientos treinta y tres
noventa y ocho mil setecientos setenta
ochenta y tres mil doscientos diecinueve
setenta y seis mil ciento setenta y tres
ochenta y nueve mil cincuenta y cinco
cuarenta y cinco mil quinientos cuarenta y siete
setenta y tres mil siete
noventa y cinco mil quinientos treinta y siete
cincuenta y cinco mil trescientos dos
cuarenta y tres mil novecientos sesenta y nueve
sesenta mil quinientos veintinueve
cuatro mil cuatrocientos sesenta y ocho
cincuenta y ocho mil trescientos sesenta y ocho
cincuenta y dos mil cuatrocientos trece
cincuenta y un mil veintidós
setenta y cuatro mil trescientos diez
cuarenta y siete mil setecientos cuarenta y siete
cinco mil ochocientos siete
mil doscientos sesenta
ochenta y nueve mil cuatrocientos cincuenta
ochenta y seis mil ciento noventa y cuatro
sesenta y nueve mil seiscientos cincuenta y uno
cincuenta y seis mil sesenta y dos
cincuenta y siete mil cuatrocientos once
treinta y tres mil novecientos ochenta y cinco
once mil setecientos cincuenta y nueve
setenta y siete mil setecientos cincuenta y cinco
quince mil trescientos dieciséis
ochenta y cinco mil trescientos cincuenta y ocho
veinte mil seiscientos cuarenta y siete
cincuenta y siete mil trescientos noventa y uno
cincuenta y cinco mil ciento setenta y ocho
ochenta mil cuatrocientos cincuenta y dos
noventa mil cuatrocientos setenta y nueve
doce mil sesenta y cinco
nueve mil seiscientos diecinueve
cuarenta y cuatro mil ochocientos treinta y nueve
treinta y nueve mil setecientos noventa y cinco
cuarenta y tres mil seiscientos treinta y tres
setenta y seis mil novecientos setenta y siete
treinta y seis mil ochocientos setenta y siete
noventa y cuatro mil novecientos noventa y cuatro
setenta y cuatro mil doscientos ochenta
setenta y nueve mil ciento setenta y cinco
noventa y tres mil novecientos cuarenta y ocho
noventa y cinco mil seiscientos veintiuno
setenta y ocho mil seiscientos ochenta y dos
noventa y tres mil ciento cuatro
cincuenta y nueve mil seiscientos cincuenta y uno
setenta y dos mil trescientos seis
ochenta y un mil ciento setenta y siete
sesenta y ocho mil treinta y tres
doce mil diecinueve
treinta y siete mil setecientos veintidós
treinta y ocho mil setecientos cuarenta
treinta y un mil ciento noventa
dos mil ochocientos cincuenta y seis
veintiún mil ciento veinte
cincuenta y cinco mil seiscientos noventa
setenta y ocho mil trescientos cuatro
setenta y un mil doscientos cuarenta y ocho
ochenta y dos mil ciento setenta y dos
cincuenta y un mil quinientos cuarenta y tres
dos mil cuatrocientos sesenta y nueve
ochenta y nueve mil setecientos sesenta
diecinueve mil trescientos dos
cincuenta y un mil trescientos treinta y tres
setenta mil doscientos ochenta y ocho
siete mil seiscientos veinticuatro
diecisiete mil novecientos treinta y seis
noventa y un mil setecientos ochenta y ocho
veintidós mil cuatrocientos treinta y siete
cuarenta y dos mil ciento noventa y ocho
cuarenta y cuatro mil novecientos once
ochenta y cuatro mil setecientos cincuenta y nueve
cincuenta y ocho mil ochenta y seis
treinta y dos mil seiscientos treinta y cuatro
sesenta y nueve mil trescientos noventa y tres
cuarenta y ocho mil quinientos cincuenta y siete
diez mil novecientos diecisiete
trece mil novecientos noventa
sesenta y ocho mil cuatrocientos treinta y cinco
diez mil novecientos veintiuno
dieciocho mil quinientos trece
nueve mil novecientos veintisiete
diecisiete mil quinientos quince
treinta y nueve mil quinientos doce
cincuenta y ocho mil ochocientos veintinueve
cincuenta y siete mil doscientos veinte
sesenta y dos mil trescientos veintiuno
treinta y tres mil seiscientos nueve
treinta y cinco mil cuatrocientos ochenta y cinco
doce mil trescientos cincuenta y ocho
noventa y un mil ochenta
sesenta y ocho mil seiscientos dieciocho
cuatro mil novecientos noventa
sesenta y dos mil novecientos cuarenta y uno
noventa y siete mil ochocientos cincuenta y cuatro
treinta y ocho mil novecientos setenta y siete
ochenta y cinco mil setecientos nueve
veinticuatro mil quinientos sesenta y tres
noventa mil novecientos cincuenta y siete
sesenta y cinco mil ochenta y seis
cuarenta y cinco mil cuatrocientos noventa y seis
treinta y seis mil
cuarenta y tres mil novecientos noventa y cuatro
noventa y siete mil trescientos sesenta y uno
treinta y cinco mil trescientos cincuenta
treinta y ocho mil doscientos setenta y seis
veintinueve mil ochocientos diecinueve
diez mil doscientos noventa y siete
diecinueve mil novecientos cincuenta y dos
setenta y tres mil ochocientos noventa y seis
sesenta y dos mil quinientos sesenta y seis
cincuenta y nueve mil setecientos ochenta y uno
treinta y cinco mil doscientos veintidós
noventa y cinco mil trescientos noventa y seis
sesenta y cuatro mil trescientos dieciséis
veintinueve mil trescientos setenta y nueve
cinco mil seiscientos diecinueve
setenta y cuatro mil cuatrocientos
veintitrés mil cuarenta y tres
noventa y dos mil ochocientos cuarenta y cuatro
ocho mil doscientos siete
ochenta y cinco mil ochocientos sesenta y cuatro
diecinueve mil ciento noventa y ocho
noventa y cinco mil setecientos treinta
veintiséis mil ochocientos sesenta y cuatro
quince mil ciento setenta y dos
setenta y tres mil once
sesenta y tres mil ochocientos setenta y nueve
treinta y dos mil trescientos cuarenta y cuatro
cinco mil setecientos ocho
cuarenta y nueve mil setecientos setenta y seis
veintitrés mil ochocientos cuarenta y seis
cuarenta mil trescientos sesenta y dos
diecinueve mil doscientos cincuenta y nueve
ochenta y siete mil trescientos nueve
noventa y nueve mil seiscientos setenta y dos
sesenta y dos mil trescientos quince
ochenta y nueve mil doscientos noventa y nueve
treinta y dos mil trescientos sesenta y seis
ochenta y siete mil quinientos sesenta y dos
veintitrés mil setecientos noventa y cuatro
cincuenta y un mil cuarenta y seis
noventa y seis mil seiscientos diecinueve
noventa mil trescientos veintitrés
dieciséis mil quinientos cincuenta y cuatro
ochenta y nueve mil doscientos cuarenta y nueve
setenta y nueve mil treinta y nueve
setenta y nueve mil setecientos veintisiete
ocho mil setecientos cincuenta y nueve
setenta y ocho mil doscientos cincuenta y dos
ochenta y dos mil novecientos cuarenta
sesenta y dos mil seiscientos ochenta y siete
cincuenta y tres mil cuatrocientos cuarenta y dos
cincuenta y cinco mil setecientos uno
cincuenta y cinco mil setenta
treinta mil sesenta y ocho
siete mil sesenta y cinco
cuatro mil cuatrocientos setenta y ocho
noventa y siete mil doscientos veintinueve
ochenta y nueve mil novecientos noventa y nueve
veintisiete mil ciento cuarenta y uno
cincuenta y dos mil treinta
doce mil doscientos cuatro
treinta y ocho mil ciento cinco
cincuenta y dos mil doscientos sesenta y dos
setenta y cinco mil novecientos sesenta y siete
setenta y nueve mil novecientos nueve
cincuenta y un mil novecientos cincuenta y tres
veintinueve mil ochenta y cuatro
noventa y dos mil novecientos ochenta
ochenta y ocho mil trescientos noventa
treinta y tres mil doscientos setenta y dos
setenta y un mil doscientos treinta y cinco
treinta y ocho mil quinientos diecinueve
setenta y seis mil seiscientos cuarenta y nueve
veintiocho mil novecientos uno
veintiocho mil quinientos veinticinco
veintidós mil setecientos doce
cuarenta y cuatro mil ochenta
treinta y cinco mil ciento cuarenta y dos
treinta y ocho mil cuatrocientos trece
diez mil novecientos ochenta y dos
veintiocho mil seiscientos siete
veintiún mil cuarenta y dos
cuarenta y tres mil quinientos cuarenta
cuatro mil ochocientos ochenta y ocho
veinticinco mil doscientos veintisiete
setenta y cinco mil seiscientos trece
ochenta y siete mil cuatrocientos veintiséis
dieciocho mil ciento treinta y uno
ochenta y siete mil doscientos dos
setenta y un mil seiscientos catorce
ochenta y cinco mil cuatrocientos cincuenta y tres
cincuenta y un mil novecientos cuarenta y seis
ocho mil doscientos uno
noventa y seis mil trescientos cuarenta y uno
setenta mil ciento sesenta y siete
sesenta y ocho mil cuatrocientos treinta y cuatro
cuarenta y tres mil novecientos veinticinco
ochenta y tres mil cuatrocientos ochenta y cinco
noventa y tres mil ochocientos treinta y siete
noventa y ocho mil seiscientos trece
setenta y cinco mil treinta y dos
cincuenta y siete mil cuarenta y siete
nueve mil quinientos setenta y cuatro
sesenta y seis mil doscientos veintiséis
cincuenta y dos mil ochocientos cuarenta y cuatro
ochenta y tres mil novecientos sesenta y cinco
cincuenta y dos mil quinientos setenta y nueve
sesenta y dos mil cuatrocientos veintitrés
treinta mil trescientos cuarenta y cinco
sesenta y cinco mil ciento diez
cuatro mil ciento setenta y seis
diez mil doscientos nueve
ochenta y ocho mil seiscientos noventa y nueve
noventa y nueve mil ochocientos veintiséis
diez mil ochocientos setenta y ocho
veinticinco mil trescientos ocho
sesenta y un mil novecientos cuarenta y cuatro
cincuenta y seis mil setecientos noventa y dos
veintiún mil ciento noventa y cinco
cincuenta y dos mil seiscientos treinta y dos
sesenta y un mil trescientos noventa y tres
setenta y dos mil quinientos veintiséis
ochenta y dos mil doscientos cincuenta y seis
noventa y seis mil doscientos sesenta y nueve
cuarenta y tres mil doscientos sesenta y nueve
sesenta y cuatro mil novecientos quince
ochenta y nueve mil doscientos veinte
veintiún mil quinientos noventa y seis
setenta y seis mil trescientos diecinueve
diez mil setecientos diecisiete
veinticuatro mil diecisiete
noventa y tres mil seiscientos catorce
treinta mil novecientos treinta y dos
noventa y nueve mil seiscientos treinta y dos
sesenta mil doscientos cincuenta
noventa y ocho mil quinientos cuarenta y uno
ocho mil ciento treinta y cuatro
setenta mil quinientos ochenta y ocho
cuarenta y siete mil doscientos cuarenta y dos
cuarenta y nueve mil setecientos ochenta y siete
trece mil doscientos noventa
sesenta y tres mil cuatrocientos sesenta
sesenta y un mil ochocientos diecinueve
ocho mil seiscientos cincuenta y tres
cuarenta y dos mil seiscientos cincuenta y siete
mil novecientos ochenta y cinco
ochenta mil ciento veintidós
noventa y ocho mil novecientos ochenta y tres
setenta y ocho mil cincuenta y uno
noventa mil setecientos treinta
treinta y dos mil trescientos setenta y dos
cuarenta y ocho mil trescientos ochenta y seis
noventa y siete mil doscientos trece
tres mil doscientos setenta y nueve
ochenta y siete mil ciento trece
sesenta y seis mil doscientos setenta y dos
veinte mil seiscientos sesenta y nueve
sesenta y cuatro mil setenta y dos
cuarenta mil sesenta y cinco
sesenta y cuatro mil ochocientos sesenta y nueve
ocho mil setecientos sesenta y cinco
cincuenta mil seiscientos quince
veintiún mil quinientos diecinueve
cincuenta mil quinientos ochenta
cincuenta y un mil seiscientos cuarenta y siete
sesenta y ocho mil novecientos sesenta y tres
sesenta mil ciento trece
veinticuatro mil ochocientos noventa y cinco
treinta y ocho mil doscientos ochenta y dos
sesenta y ocho mil seis
treinta y siete mil quinientos treinta y cuatro
ochenta y dos mil seiscientos ochenta y dos
ochenta y siete mil seiscientos setenta y tres
sesenta y tres
ochenta y tres mil ciento sesenta y cuatro
cincuenta y seis mil ciento cuarenta y ocho
cuarenta y cinco mil setecientos nueve
treinta y cuatro mil cuarenta y seis
setenta y cuatro mil quinientos cincuenta y tres
tres mil ochocientos sesenta y dos
veinticinco mil quinientos cuarenta
treinta y siete mil quinientos ochenta y seis
treinta y nueve mil ciento noventa y ocho
dieciséis mil ochocientos
veintinueve mil novecientos cinco
setenta y cinco mil cuatro
setenta y seis mil doscientos setenta y uno
cuarenta y cinco mil ciento sesenta y tres
cincuenta y nueve mil cincuenta y uno
cincuenta y siete mil setecientos setenta
veinte mil novecientos setenta y siete
cuarenta y un mil trescientos setenta y ocho
veintiséis mil trescientos treinta y cuatro
treinta mil ochocientos cuatro
sesenta y siete mil setecientos ochenta y ocho
diecisiete mil ochenta y seis
veinticuatro mil setecientos noventa y nueve
quince mil trescientos cuarenta y nueve
veinticuatro mil seiscientos setenta y ocho
sesenta y siete mil seiscientos veinticinco
cuarenta mil seiscientos cuarenta y cinco
treinta y tres mil doscientos treinta y cuatro
catorce mil setecientos veinticinco
setenta y dos mil novecientos cincuenta y dos
cuarenta y siete mil seiscientos treinta y seis
noventa y dos mil trescientos cincuenta y dos
cuatro mil setecientos veintinueve
veinte mil setecientos sesenta y tres
sesenta mil setecientos setenta y ocho
veintitrés mil quinientos sesenta y cuatro
doce mil trescientos cincuenta y nueve
veintiún mil quinientos ochenta y uno
sesenta y un mil trescientos sesenta y tres
noventa y cinco mil cuatrocientos treinta y cinco
siete mil novecientos ochenta y cinco
noventa y dos mil cuatrocientos setenta y seis
dos mil quinientos ochenta y cinco
ochenta y dos mil novecientos noventa y seis
treinta y cuatro mil cuatrocientos cincuenta y tres
noventa y tres mil diez
setenta mil noventa y seis
setenta y cinco mil novecientos dos
dieciocho mil novecientos nueve
ochenta y un mil novecientos treinta y uno
cincuenta y siete mil quinientos cuarenta y uno
treinta y tres mil veintiocho
cuarenta y un mil setecientos cincuenta y dos
siete mil setecientos veintitrés
treinta y cinco mil setecientos cuarenta y seis
noventa y seis mil quinientos noventa y nueve
setenta y ocho mil ochenta y cinco
treinta y siete mil trescientos trece
cinco mil cuatrocientos cuarenta y cinco
ochenta y un mil trescientos noventa y siete
treinta y cinco mil quinientos ochenta y cuatro
cuarenta y tres mil quinientos veintinueve
seis mil quinientos sesenta y siete
ochenta y tres mil trescientos sesenta y cinco
treinta y cinco mil cuatrocientos noventa y siete
ochenta y ocho mil setecientos dieciocho
veintiocho mil novecientos treinta y dos
veintiocho mil quinientos ochenta y nueve
dos mil setecientos setenta y dos
noventa y siete mil novecientos diecinueve
diecinueve mil novecientos setenta
cuarenta y cinco mil seiscientos noventa y seis
treinta y nueve mil quinientos cincuenta
ochenta mil cuatrocientos treinta y tres
sesenta y ocho mil trescientos veintitrés
dieciocho mil trescientos cincuenta y uno
cincuenta y ocho mil setecientos diez
catorce mil cincuenta y cinco
treinta y tres mil cuatrocientos cincuenta y siete
sesenta y ocho mil quinientos noventa y seis
cincuenta y cuatro mil cuatrocientos ochenta y dos
ciento siete
setenta y nueve mil quinientos cuarenta y siete
ochenta mil seiscientos noventa y seis
treinta y tres mil trescientos veintiuno
setenta y siete mil cuatrocientos noventa y cuatro
treinta y ocho mil novecientos ocho
setenta y cuatro mil setecientos cincuenta
noventa y cinco mil novecientos veintinueve
noventa y cinco mil ciento setenta y tres
siete mil cuatrocientos veintisiete
ochenta y dos mil ciento cinco
sesenta y tres mil novecientos ochenta y ocho
cincuenta y ocho mil doscientos sesenta y nueve
sesenta mil quinientos veintiséis
ochenta y seis mil ochocientos cuarenta y nueve
treinta y dos mil setecientos cincuenta y dos
cuarenta y nueve mil doscientos veinticuatro
noventa y cuatro mil ochocientos cincuenta y tres
sesenta y dos mil cuatrocientos noventa y tres
noventa y dos mil ciento sesenta y ocho
setenta y siete mil cuatrocientos noventa y ocho
cincuenta y siete mil treinta y uno
treinta y seis mil cuarenta
treinta y nueve mil ciento noventa y tres
noventa y seis mil setecientos setenta y ocho
nueve mil trescientos treinta y ocho
veintisiete mil doscientos cuarenta y cinco
veinte mil ochocientos treinta
diecisiete mil cuatrocientos cincuenta y cinco
cincuenta y nueve mil quinientos uno
catorce mil cuarenta y cuatro
sesenta mil trescientos noventa y seis
dieciséis mil quinientos treinta y ocho
setenta y dos mil ochocientos cincuenta y nueve
tres mil seiscientos ochenta
ocho mil setenta y uno
cuarenta y seis mil setecientos once
ochenta y tres mil seiscientos cuarenta y dos
dieciocho mil novecientos veinticinco
veintidós mil setecientos veinticinco
treinta y nueve mil quinientos treinta y siete
noventa y dos mil trescientos cinco
cuarenta y nueve mil seiscientos veintiocho
sesenta y tres mil cuatrocientos uno
treinta y seis mil ciento doce
noventa y dos mil seiscientos sesenta y nueve
noventa y siete mil quinientos cuarenta y dos
treinta y siete mil ochocientos treinta y uno
ochenta y siete mil cuatrocientos ochenta y cinco
sesenta y nueve mil cuatrocientos treinta y seis
trescientos seis
treinta y seis mil noventa y cuatro
setenta y siete mil trescientos setenta y dos
noventa y siete mil doscientos diecisiete
veinticinco mil trescientos noventa y tres
noventa y seis mil trescientos trece
cinco mil cuatrocientos cincuenta y ocho
once mil ciento cincuenta y siete
sesenta y cinco mil doscientos cuarenta y cinco
siete mil setenta
cincuenta mil setecientos once
setenta y cuatro mil ciento uno
sesenta mil dieciocho
setenta y un mil cincuenta y dos
ochenta y cuatro mil ciento noventa y seis
sesenta y ocho mil seiscientos cincuenta y cuatro
cincuenta y nueve mil noventa y dos
trece mil cuatrocientos cincuenta y ocho
treinta y tres mil trescientos noventa y seis
seis mil diecinueve
setenta y cuatro mil cuarenta y dos
cincuenta y tres mil setecientos cincuenta y tres
noventa y nueve mil quinientos setenta y uno
cuarenta y siete mil ciento setenta y seis
ochenta y nueve mil cuatrocientos treinta y tres
cincuenta y tres mil cuatrocientos treinta y tres
sesenta y siete mil ciento cuatro
setenta y nueve mil setecientos veintidós
noventa y cinco mil novecientos treinta y cinco
dieciséis mil cuatrocientos cuarenta y dos
nueve mil seiscientos treinta y dos
ochenta y dos mil ochocientos veinte
cuarenta y dos mil quinientos treinta
setenta y cinco mil doscientos seis
trece mil trescientos ochenta y dos
cincuenta y dos mil trescientos setenta y siete
cuarenta mil cincuenta y dos
cuarenta y cuatro mil cuatrocientos noventa y nueve
veinticuatro mil doscientos ochenta y cinco
cuarenta y un mil setecientos ochenta y seis
sesenta y ocho mil novecientos seis
treinta y un mil cincuenta y dos
cincuenta y cuatro mil novecientos setenta y seis
cincuenta y seis mil cuarenta y seis
veintiséis mil doscientos setenta y tres
setenta y cinco mil cuatrocientos dieciocho
once mil novecientos cincuenta y seis
treinta y un mil setecientos cincuenta y dos
sesenta y siete mil setecientos treinta y ocho
sesenta mil cuatrocientos cuarenta y uno
once mil doscientos treinta y ocho
cuarenta mil ciento tres
veintiocho mil novecientos ochenta y seis
seiscientos cincuenta y dos
setenta y dos mil veintisiete
setenta y dos mil trescientos cuarenta y nueve
cuarenta y nueve mil novecientos veinte
sesenta y ocho mil ochenta y cuatro
noventa y cuatro mil novecientos sesenta y siete
cincuenta y dos mil novecientos setenta
cincuenta y ocho mil ciento setenta y cuatro
veintiséis mil ochocientos
setenta y un mil novecientos
quince mil seiscientos noventa y tres
ochenta y seis mil setecientos ochenta y ocho
sesenta y dos mil cuatrocientos noventa y dos
treinta mil cuatrocientos nueve
cincuenta y siete mil seiscientos ochenta y cinco
ochenta y seis mil ochocientos veinticuatro
treinta y nueve mil novecientos ochenta y cuatro
ochenta mil ochocientos cincuenta y seis
ocho mil setecientos setenta y uno
veinticuatro mil novecientos setenta y cinco
treinta y siete mil novecientos ochenta y cinco
treinta y ocho mil ciento veintinueve
veinticuatro mil novecientos cuarenta y seis
dieciocho mil seiscientos veintisiete
treinta y dos mil doscientos setenta y ocho
veintitrés mil ciento sesenta y dos
doce mil doscientos cincuenta y uno
veinticuatro mil treinta y ocho
noventa y siete mil quinientos cinco
veintinueve mil ciento noventa y dos
setenta y siete mil veintisiete
seiscientos cincuenta
diecisiete mil seiscientos veintinueve
noventa y ocho mil trescientos tres
diez mil trescientos nueve
cuarenta y siete mil trece
noventa y un mil setecientos sesenta y ocho
treinta y nueve mil quinientos veintidós
sesenta y cinco mil quinientos setenta y seis
mil ciento sesenta y ocho
noventa y ocho mil seiscientos treinta y nueve
veintiséis mil trescientos ochenta y seis
treinta y tres mil setecientos noventa y uno
veintinueve mil novecientos noventa y cinco
setenta y tres mil doscientos cincuenta y cuatro
veintiocho mil trescientos noventa y nueve
ochenta y dos mil novecientos veintiocho
once mil novecientos noventa y ocho
diecisiete mil ochocientos ochenta y nueve
setenta y cinco mil cincuenta y nueve
treinta y un mil novecientos treinta y nueve
quince mil trescientos veintinueve
noventa y un mil veintiocho
setenta mil sesenta y dos
quinientos veinte
setenta y seis mil doscientos seis
setenta y nueve mil ciento ochenta y ocho
noventa y seis mil seiscientos noventa
cuarenta y un mil setecientos diecisiete
noventa y cuatro mil cuatrocientos setenta y cinco
setenta y cuatro mil ochocientos cinco
ochenta y seis mil cuatrocientos quince
cincuenta y dos mil quinientos setenta y uno
cuarenta y un mil quinientos setenta y seis
sesenta y un mil setenta
ochenta y dos mil doscientos sesenta y cuatro
cincuenta mil ochocientos setenta y tres
treinta y cinco mil trescientos
veintiún mil setecientos setenta y seis
veintiocho mil setecientos treinta y uno
setenta y ocho mil cuatrocientos noventa y seis
dieciocho mil doscientos sesenta y ocho
setenta y ocho mil seiscientos noventa y cuatro
cincuenta y seis mil setecientos treinta y uno
veintiocho mil ciento veintitrés
ochenta y dos mil seiscientos sesenta y nueve
diecisiete mil trescientos ochenta y seis
sesenta y ocho mil seiscientos treinta y tres
veintinueve mil cuatrocientos cincuenta y cuatro
cuarenta y cuatro mil quinientos sesenta y cuatro
dos mil doscientos tres
siete mil doscientos ochenta y tres
treinta y dos mil setecientos cincuenta y cuatro
treinta y cinco mil novecientos noventa y tres
noventa y cuatro mil noventa y dos
doce mil novecientos cincuenta y cinco
doce mil quinientos ochenta y cinco
veinticinco mil quinientos cincuenta y dos
cinco mil setecientos treinta y cuatro
catorce mil veintiuno
noventa y seis mil ciento setenta y seis
cuarenta y cinco mil novecientos veintitrés
dieciséis mil cuatrocientos veintitrés
treinta mil cincuenta y nueve
treinta y dos mil novecientos noventa y cuatro
diecinueve mil doscientos setenta y nueve
cuatro mil novecientos noventa y nueve
cuarenta y cinco mil ochocientos sesenta y cinco
ochenta mil seiscientos sesenta y ocho
noventa y tres mil novecientos treinta y cuatro
treinta y seis mil trescientos veinte
sesenta y siete mil ochocientos cuarenta y seis
noventa y cuatro mil ochocientos setenta y ocho
noventa y un mil novecientos treinta y nueve
veintidós mil trescientos sesenta y cuatro
cuarenta y cuatro mil seiscientos cincuenta y uno
veintidós mil setenta y ocho
cuatro mil quinientos cincuenta y tres
treinta y seis mil setecientos cuarenta y uno
ochenta mil tres
cuarenta y seis mil novecientos uno
veinte mil trescientos sesenta y tres
cinco mil once
setenta y ocho mil dos
cuarenta y dos mil noventa
ochenta y cinco mil ciento cincuenta y tres
ochenta y un mil seiscientos noventa y seis
cincuenta y nueve mil doscientos treinta y cuatro
ochenta y cuatro mil quinientos noventa y cinco
cinco mil trescientos catorce
noventa y dos mil setecientos ochenta y nueve
treinta y un mil setenta y seis
diecinueve mil quince
diecinueve mil ciento noventa y siete
noventa y nueve mil veintiocho
noventa y tres mil trescientos treinta y seis
dieciséis mil ciento sesenta
noventa y nueve mil novecientos cuarenta y nueve
ochenta y nueve mil novecientos treinta y nueve
setenta y seis mil setecientos diez
sesenta y cinco mil novecientos veintinueve
setenta y siete mil quinientos diez
diecinueve mil novecientos ocho
seis mil treinta y seis
noventa y cuatro mil novecientos cuarenta y tres
noventa y cuatro mil ciento treinta y cinco
treinta y tres mil setecientos cincuenta y tres
cuarenta y dos mil ochocientos ochenta y seis
cincuenta y nueve mil ciento noventa
dieciocho mil setecientos catorce
sesenta mil novecientos
cuarenta y cinco mil doscientos cuarenta y dos
diecinueve mil ciento cuarenta y ocho
catorce mil setecientos setenta y ocho
cuarenta y dos mil cuarenta y tres
treinta y nueve mil cuatrocientos treinta y siete
cuarenta y cuatro mil trescientos cincuenta y nueve
dieciséis mil treinta y uno
noventa y ocho mil trescientos cinco
cincuenta y ocho mil quinientos veinticuatro
noventa y seis mil cuatrocientos noventa y ocho
noventa y dos mil quinientos sesenta y ocho
ochenta y nueve mil seiscientos siete
sesenta y tres mil novecientos ochenta y siete
sesenta y dos mil ochenta
diecisiete mil setecientos trece
sesenta y cinco mil doscientos cuarenta y dos
quince mil setecientos veintidós
treinta y tres mil ochocientos sesenta y seis
noventa y un mil setecientos ocho
quince mil cuatrocientos cincuenta y seis
sesenta y nueve mil ciento siete
ocho mil ochocientos sesenta y tres
siete mil trescientos cincuenta y tres
dieciocho mil setecientos setenta
veinticuatro mil noventa
cuarenta y cinco mil cuatrocientos ocho
noventa y siete mil treinta y dos
diecisiete mil ciento veintiocho
cincuenta y tres mil cincuenta y nueve
once mil ochocientos cincuenta y seis
veintiocho mil seiscientos sesenta y uno
noventa y dos mil trescientos setenta y dos
doce mil sesenta y uno
ochenta y siete mil quinientos veintiuno
veinte mil novecientos sesenta y dos
ochenta mil quinientos treinta y cinco
noventa y siete mil novecientos nueve
sesenta y cinco mil doscientos setenta y seis
cuarenta y ocho mil cuatrocientos sesenta y seis
treinta y seis mil setecientos cuarenta y cinco
setenta y ocho mil cuatrocientos treinta y cuatro
siete mil ciento treinta y seis
cuarenta y un mil seiscientos setenta y nueve
ochenta y cinco mil ciento siete
siete mil trescientos ochenta y seis
cincuenta y tres mil novecientos doce
veintiséis mil treinta y dos
cuarenta y dos mil doscientos noventa y siete
sesenta y dos mil ciento ochenta y cinco
cuarenta y un mil ciento cincuenta
quince mil doscientos sesenta y seis
veintiocho mil doscientos cuarenta y ocho
veintiséis mil ciento veintitrés
cuarenta y ocho mil novecientos veinte
doce mil seiscientos siete
cincuenta mil seiscientos cuatro
veintiséis mil doscientos treinta y dos
sesenta y cinco mil ochocientos treinta y cuatro
sesenta y seis mil setecientos noventa
cincuenta y cuatro mil seiscientos noventa
cinco mil cuatrocientos sesenta y ocho
cincuenta y ocho mil ochocientos treinta y seis
veintinueve mil cuatrocientos sesenta y cuatro
cuatro mil doscientos cuarenta
diecinueve mil quinientos dos
doscientos doce
ochenta y ocho mil setecientos setenta y siete
cuarenta y tres mil ciento cuarenta
cuarenta y dos mil quinientos sesenta y cuatro
cincuenta y nueve mil doscientos cuarenta y dos
treinta y siete mil doscientos cincuenta y nueve
setenta mil cuatrocientos setenta y cuatro
cuatro mil trescientos cuarenta y uno
treinta y cinco mil cuatrocientos ocho
cincuenta y seis mil sesenta y cuatro
sesenta y tres mil quinientos catorce
noventa mil sesenta y ocho
cincuenta y nueve mil setecientos treinta y nueve
noventa y un mil novecientos noventa y nueve
ocho mil ciento ochenta y cuatro
cuarenta y seis mil quinientos veintiuno
ochenta mil sesenta y dos
ochenta y ocho mil ciento cincuenta y dos
diecinueve mil novecientos noventa y siete
veintidós mil quinientos treinta y seis
noventa y ocho mil doscientos treinta y uno
cincuenta y seis mil setenta y ocho
cuatro mil trescientos veintitrés
sesenta y tres mil quince
ochenta y siete mil ciento diez
veintiocho mil ciento sesenta
cuarenta y seis mil novecientos cinco
sesenta y nueve mil setecientos sesenta y seis
cuarenta y ocho mil seiscientos noventa y cuatro
treinta y siete mil trescientos ochenta y dos
noventa y cinco mil novecientos ochenta y uno
setenta y nueve mil trescientos diecisiete
noventa y un mil ochocientos cincuenta y dos
veintitrés mil setecientos cuarenta y seis
cuarenta y siete mil doscientos noventa y dos
cincuenta y un mil trescientos diez
cuatro mil seiscientos treinta y seis
ochenta y siete mil trescientos diecinueve
ochenta y nueve mil setenta y dos
ochenta y dos mil noventa
veintiún mil noventa y ocho
sesenta y cuatro mil quinientos cincuenta y dos
ochenta y cinco mil cuatrocientos veinticinco
ochenta y seis mil treinta y dos
trece mil quinientos ochenta y ocho
cuarenta y siete mil ciento sesenta y tres
cuarenta y ocho mil ochenta y cuatro
ochenta y ocho mil quinientos uno
doce mil doscientos noventa y dos
cuarenta y dos mil ochocientos veintiséis
setenta y seis mil novecientos ochenta y cuatro
treinta y seis mil trescientos cuarenta y siete
ochenta y ocho mil doscientos treinta
setenta y seis mil novecientos ochenta y nueve
cincuenta y dos mil seiscientos treinta
noventa y tres mil novecientos cincuenta y uno
noventa y cuatro mil quinientos cuarenta y ocho
sesenta y seis mil novecientos setenta y siete
treinta y nueve mil setecientos sesenta y seis
veintiún mil sesenta y uno
treinta mil seiscientos cuarenta y nueve
cuarenta y un mil quinientos treinta y uno
catorce mil trescientos treinta y dos
sesenta y ocho mil quinientos tres
ochenta y dos mil ciento sesenta y cinco
cincuenta y siete mil ciento ochenta y tres
noventa y cuatro mil cuatrocientos treinta
cuarenta y siete mil trescientos setenta y dos
setenta y tres mil ochocientos cincuenta y cinco
cuarenta y un mil novecientos sesenta y nueve
diecisiete mil ochocientos catorce
cincuenta y un mil novecientos uno
catorce mil seiscientos veintiuno
cincuenta y nueve mil cuatrocientos dieciocho
treinta y un mil doscientos ochenta y dos
veintiún mil ochocientos cincuenta y cuatro
veinticuatro mil ochenta y tres
veintinueve mil quinientos treinta y dos
sesenta y un mil setecientos ochenta y cinco
catorce mil noventa y siete
catorce mil novecientos ochenta y siete
trece mil ochocientos cuarenta y tres
dieciséis mil novecientos dieciocho
cuarenta y nueve mil setecientos treinta y seis
cuarenta y un mil cuatrocientos veinticuatro
cuarenta y cinco mil ochenta y tres
dieciséis mil novecientos sesenta y cuatro
sesenta y tres mil cuatrocientos noventa y tres
cuarenta y seis mil setecientos cuarenta y seis
setenta y cinco mil trescientos cuarenta y nueve
noventa y cuatro mil quinientos veintitrés
sesenta y dos mil seiscientos cuarenta y nueve
cuarenta y nueve mil cuatrocientos setenta y cuatro
diecinueve mil ochocientos noventa y cuatro
treinta y dos mil setecientos catorce
treinta y seis mil setecientos cincuenta y seis
ochenta y cuatro mil quinientos nueve
treinta mil quinientos nueve
sesenta y ocho mil quinientos setenta y seis
veinticuatro mil quinientos veinticinco
quince mil seiscientos treinta y uno
treinta y un mil setecientos setenta y tres
sesenta y cuatro mil doscientos veintiocho
cuarenta y ocho mil trescientos setenta
cuarenta y tres mil doscientos cincuenta
cinco mil ochocientos seis
cincuenta y nueve mil ochocientos cincuenta
sesenta mil cuatrocientos sesenta y seis
siete mil seiscientos noventa
ochenta y un mil setecientos noventa y cinco
seis mil ochocientos sesenta y uno
veinticinco mil trescientos noventa y siete
nueve mil seiscientos cuarenta y nueve
cincuenta y dos mil seiscientos veintiuno
cuarenta y dos mil setecientos sesenta y cinco
noventa mil doscientos treinta y nueve
ochenta mil quinientos noventa y nueve
noventa y siete mil setecientos cincuenta y nueve
quince mil cuatrocientos ochenta y seis
setenta y cuatro mil cuatrocientos noventa y tres
cuarenta y ocho mil doscientos cincuenta
sesenta y cinco mil ciento noventa y nueve
cuarenta y tres mil novecientos setenta y ocho
sesenta y dos mil doscientos tres
treinta y dos mil ochocientos ochenta
noventa y cuatro mil quinientos cuarenta y cinco
setenta y ocho mil ciento setenta y dos
sesenta y ocho mil trescientos diecisiete
setenta y seis mil seiscientos cincuenta
cincuenta y seis mil quinientos cincuenta
cuarenta y seis mil novecientos treinta y cuatro
cincuenta y cinco mil veinticinco
ochenta mil quinientos treinta y ocho
sesenta y seis mil seiscientos once
setenta y un mil novecientos setenta y cuatro
noventa y tres mil novecientos noventa
veintinueve mil ciento cuatro
ochenta mil seis
cuarenta y cuatro mil novecientos ochenta y cuatro
nueve mil doscientos veintitrés
noventa y cuatro mil ochocientos dieciocho
setenta y siete mil ochocientos noventa y ocho
ochenta y nueve mil doscientos sesenta
ochenta y dos mil ochocientos cuarenta y nueve
treinta y dos mil cuatrocientos treinta y dos
cinco mil setecientos noventa y cuatro
noventa y tres mil quinientos cincuenta y seis
setenta y dos mil seiscientos cincuenta
ocho mil quinientos veintiuno
setenta y seis mil
treinta y ocho mil ciento dos
cinco mil doscientos veintisiete
ochenta y nueve mil doscientos ochenta
setenta y nueve mil veintisiete
noventa y seis mil trescientos treinta y siete
setenta y tres mil quinientos setenta y cinco
treinta y dos mil quinientos cuarenta y siete
dieciséis mil setecientos quince
setenta y tres mil ciento treinta y uno
cincuenta y tres mil ochocientos setenta y dos
cincuenta y un mil ochocientos ochenta y dos
ochenta y cuatro mil doscientos noventa y ocho
cuarenta y tres mil ochocientos ochenta y uno
dieciocho mil quinientos setenta y dos
veintitrés mil quinientos cinco
cuarenta y un mil quinientos cuarenta y nueve
sesenta mil seiscientos seis
cincuenta y tres mil quinientos veintiséis
ochenta y cinco mil doscientos quince
setenta y cinco mil cuatrocientos sesenta y uno
cuarenta y tres mil seiscientos noventa y siete
ochenta y dos mil trescientos veintinueve
diecisiete
sesenta y un mil ochenta
ochenta y seis mil novecientos siete
ochenta y ocho mil cincuenta y nueve
treinta y tres mil quinientos ochenta y tres
veintinueve mil veintidós
treinta y cinco mil seiscientos diecisiete
treinta y cuatro mil cuatrocientos cuatro
veinticinco mil quinientos treinta y seis
treinta y dos mil setecientos noventa y nueve
ochenta mil novecientos quince
cinco mil seiscientos sesenta
treinta y nueve mil cuatrocientos treinta y nueve
noventa y siete mil nueve
tres mil quinientos uno
veinticinco mil treinta y ocho
setenta y tres mil seiscientos cincuenta y seis
cuarenta y nueve mil setecientos cinco
ochenta mil seiscientos siete
sesenta y cuatro mil ochocientos veintidós
noventa y cuatro mil setecientos cuarenta y tres
diez mil seiscientos noventa y siete
ochenta y ocho mil ochocientos catorce
setenta y cinco mil setecientos doce
once mil novecientos treinta y dos
treinta y cuatro mil quinientos sesenta y siete
siete mil cincuenta
diecisiete mil trescientos ochenta y uno
dos mil trescientos veinticuatro
sesenta y un mil ochocientos cincuenta y cinco
cinco mil sesenta y dos
dieciocho mil novecientos noventa y nueve
dos mil ochocientos noventa y uno
ochenta y cuatro mil veinticinco
noventa y dos mil setecientos ochenta y dos
sesenta mil cuatrocientos noventa y seis
setenta y seis mil noventa y uno
setenta mil cuatrocientos ochenta y ocho
noventa y cuatro mil trescientos cincuenta y cuatro
veintitrés mil cuatrocientos noventa y siete
noventa y ocho mil cuatrocientos sesenta y nueve
cincuenta y un mil setecientos diecisiete
treinta y cuatro mil setecientos treinta y nueve
cuarenta y cuatro mil doscientos setenta y seis
setenta mil ciento sesenta y tres
cinco mil novecientos setenta y dos
cuarenta y tres mil novecientos cincuenta y dos
sesenta y seis mil cuatrocientos sesenta y cuatro
noventa mil quinientos ochenta y ocho
veintitrés mil novecientos cincuenta y cuatro
ochenta y siete mil seiscientos ochenta y dos
sesenta y un mil cuatrocientos veintisiete
cuarenta y un mil cuatrocientos veintidós
ochenta y cuatro mil trescientos setenta y seis
quince mil ciento setenta y siete
noventa y cuatro mil novecientos ochenta y cuatro
cincuenta y dos mil ochocientos diecinueve
diecinueve mil seiscientos noventa y cinco
treinta y cinco mil trescientos veintiséis
cuarenta y nueve mil ochocientos veinticinco
noventa y ocho mil trescientos cuarenta y tres
dos mil ochocientos cincuenta y siete
veintiséis mil seis
ochenta y nueve mil trescientos ochenta y cuatro
cuarenta mil doscientos cuatro
ochenta y siete mil ochocientos noventa y dos
cincuenta y siete mil treinta y tres
setenta y un mil novecientos cuarenta y nueve
treinta y seis mil quinientos setenta y uno
tres mil ochocientos cuatro
ochenta y cuatro mil ochocientos cuarenta
sesenta y siete mil ochenta y siete
cincuenta y nueve mil setecientos ochenta y siete
ochenta y ocho mil trescientos dieciséis
ochenta mil ciento noventa y dos
setenta y cuatro mil ochocientos setenta y seis
sesenta y cinco mil cuatrocientos veintinueve
trece mil setecientos sesenta y dos
noventa y siete mil setenta y nueve
ochenta y nueve mil ochocientos ochenta y tres
sesenta y un mil seiscientos cincuenta y cuatro
sesenta y tres mil ciento noventa y seis
dieciséis mil ochocientos cincuenta y siete
noventa mil uno
sesenta y siete mil ciento dieciocho
mil seiscientos catorce
dos mil ciento cincuenta y cuatro
ochenta mil novecientos ocho
setenta y tres mil cincuenta y uno
setenta y nueve mil ciento veinticinco
setenta y un mil novecientos quince
noventa y nueve mil trescientos ocho
diez mil novecientos ochenta
setenta mil cuatrocientos cuarenta y siete
veintidós mil seiscientos treinta y dos
treinta y siete mil trescientos veintiséis
treinta y cinco mil doscientos ochenta y siete
ochenta mil ochocientos cincuenta y nueve
dos mil setecientos cincuenta y ocho
nueve mil ochocientos treinta y nueve
treinta y siete mil trescientos treinta y dos
sesenta y siete mil ochocientos noventa y ocho
veintitrés mil ciento dieciséis
ochenta y seis mil doce
sesenta y ocho mil diez
sesenta y tres mil doscientos setenta y cuatro
quince mil doscientos cincuenta y tres
treinta y ocho mil ciento ochenta y tres
ochenta mil cuatrocientos cuarenta y cuatro
veintiséis mil setecientos nueve
cincuenta y cinco mil ciento setenta y cuatro
veintisiete mil quinientos ochenta y siete
ochenta y un mil ochocientos cincuenta y uno
cincuenta y tres mil trescientos treinta y ocho
cincuenta y siete mil ciento veintiuno
setenta y cuatro mil seiscientos cuarenta y cuatro
cuatro mil setecientos noventa y uno
cincuenta y nueve mil cuatrocientos veintitrés
diecinueve mil cuatrocientos setenta y siete
cuarenta mil ciento veinte
ochenta y cinco mil quinientos ochenta
cincuenta y tres mil trescientos diez
quince mil quinientos setenta y dos
veinticinco mil ochocientos cincuenta y cuatro
veintinueve mil doscientos noventa y ocho
diecisiete mil trescientos cincuenta y dos
sesenta mil doscientos treinta y dos
ochenta y cuatro mil ochocientos cuarenta y dos
ochenta y cinco mil ciento ochenta y siete
veinticuatro mil seiscientos cincuenta y uno
cuarenta mil ochocientos cuarenta y ocho
sesenta y ocho mil setecientos veintiséis
veintiún mil doscientos ochenta y siete
noventa y siete mil ciento cuarenta
setenta y seis mil trescientos
sesenta y tres mil ciento setenta y cinco
ochenta y tres mil ochocientos sesenta y tres
setenta y tres mil trescientos setenta y nueve
dos mil cuatrocientos seis
veinticinco mil setecientos ocho
tres mil cuatrocientos cincuenta
cincuenta y nueve mil ciento cuarenta y ocho
cuarenta y tres mil doscientos seis
setenta y tres mil ochocientos setenta y siete
veintidós mil novecientos sesenta y tres
sesenta y cinco mil cuatrocientos setenta y dos
cuarenta y dos mil ciento setenta y siete
siete
noventa y siete mil novecientos veintinueve
veintitrés mil trescientos treinta y cuatro
ocho mil ciento cuarenta y cinco
siete mil novecientos veintisiete
cincuenta y nueve mil quinientos ocho
noventa y siete mil cuarenta y nueve
mil setecientos noventa
sesenta y cinco mil setecientos sesenta y seis
noventa y cuatro mil setecientos noventa
ochenta y seis mil ochocientos dieciséis
noventa y cuatro mil trescientos cuarenta y uno
cincuenta y un mil seiscientos noventa y dos
cuarenta y siete mil seiscientos cuarenta y tres
noventa y seis mil seiscientos cincuenta y dos
veintitrés mil quinientos ochenta y cinco
ochenta y un mil doscientos veintidós
cuarenta y cuatro mil treinta y siete
setenta y cuatro mil seiscientos treinta y tres
setenta y siete mil ciento sesenta y cuatro
veintidós mil setecientos noventa y ocho
treinta y ocho mil cuatrocientos noventa y nueve
cincuenta y cinco mil quinientos ochenta y tres
noventa y un mil sesenta y nueve
cincuenta y dos mil setecientos sesenta y cinco
diecinueve mil novecientos veinte
cincuenta y siete mil doscientos veintiséis
ochenta y nueve mil cien
noventa y ocho mil setecientos cuarenta y nueve
setenta y siete mil seiscientos cinco
veintinueve mil doscientos treinta y nueve
veintidós mil seiscientos veintiuno
treinta y un mil setecientos cincuenta y siete
dieciséis mil novecientos noventa y cuatro
seis mil cincuenta y dos
sesenta y seis mil trescientos sesenta y cinco
ochenta y nueve mil trescientos veintisiete
noventa mil seiscientos dos
dieciocho mil doscientos ochenta y siete
cuarenta y tres mil cincuenta y uno
noventa y dos mil seiscientos treinta y tres
veinticuatro mil ciento setenta y dos
veinte mil seiscientos setenta y tres
veintinueve mil sesenta y nueve
tres mil novecientos ochenta
setenta y un mil ochocientos veinticuatro
noventa y siete mil seiscientos setenta y seis
treinta mil doscientos uno
cincuenta y cinco mil novecientos once
setenta y cuatro mil ochocientos ochenta y cuatro
sesenta y nueve mil trescientos cuarenta y nueve
veintiséis mil setecientos treinta y cinco
cincuenta y dos mil seiscientos doce
cuatro mil seiscientos cuarenta y nueve
dos mil cuatrocientos sesenta y uno
dos mil treinta y uno
setenta y cinco mil setecientos treinta
ochenta y siete mil ciento cuarenta y cuatro
noventa mil seiscientos noventa
setenta y un mil setecientos veintiuno
cincuenta y dos mil cuatrocientos veintisiete
setenta y seis mil cuatrocientos sesenta y cinco
diez mil seiscientos once
catorce mil cuatrocientos dieciséis
cincuenta mil novecientos ochenta
treinta y nueve mil novecientos setenta y tres
ochenta y dos mil quinientos cuatro
treinta mil setecientos once
sesenta y ocho mil quinientos setenta y dos
cincuenta y seis mil cuatrocientos treinta y cinco
cincuenta mil cuatrocientos doce
ochenta y nueve mil trescientos ochenta y tres
sesenta y siete mil quinientos treinta y seis
cincuenta mil doscientos nueve
treinta y seis mil setecientos ochenta y tres
cincuenta y ocho mil ciento ochenta
ocho mil doscientos ochenta y cuatro
noventa y tres mil quinientos noventa y siete
ochenta y cinco mil treinta y cinco
cuarenta y nueve mil cuatrocientos quince
setenta y cinco mil ciento cincuenta y cinco
diez mil novecientos sesenta y nueve
noventa y un mil seiscientos sesenta y uno
sesenta y seis mil quinientos tres
cuarenta y cinco mil cuatrocientos setenta y uno
treinta y nueve mil ochocientos treinta y dos
cuarenta y cuatro mil ciento sesenta y dos
treinta y un mil ochocientos cincuenta y tres
noventa y cuatro mil setecientos siete
veintiocho mil seiscientos noventa y dos
noventa y cinco mil cuatrocientos trece
catorce mil doscientos veintiséis
setenta y cinco mil setecientos cuarenta y dos
sesenta y dos mil cincuenta y ocho
cincuenta y cuatro mil trescientos noventa y uno
noventa y un mil doscientos setenta y uno
noventa y cinco mil setecientos treinta y ocho
noventa y cinco mil doscientos cincuenta y uno
veinticuatro mil ochocientos diecisiete
dieciocho mil novecientos cincuenta y nueve
noventa mil cuatrocientos dos
sesenta y nueve mil sesenta y tres
setenta mil novecientos setenta y seis
cuarenta y ocho mil cuatrocientos treinta
sesenta y ocho mil ochocientos sesenta y seis
noventa y nueve mil seiscientos cincuenta y siete
veintiséis mil novecientos catorce
cincuenta y ocho mil doscientos sesenta y dos
ochenta y cuatro mil novecientos siete
setenta y nueve mil cuatrocientos cuarenta y uno
sesenta y tres mil treinta y siete
noventa y cuatro mil ochocientos treinta
tres mil trescientos noventa
cuarenta y ocho mil cuatrocientos seis
veintiséis mil quinientos cincuenta y seis
sesenta y siete mil cuatrocientos quince
setenta mil novecientos setenta y siete
veintiséis mil doscientos treinta y siete
treinta mil novecientos noventa y uno
noventa y cinco mil setecientos ochenta y tres
trescientos cuarenta y ocho
setenta y seis mil novecientos treinta y nueve
veintiún mil trescientos diecinueve
noventa mil seiscientos cincuenta y ocho
cuarenta y nueve mil doscientos cuarenta y tres
diecisiete mil seiscientos sesenta y cinco
treinta y cinco mil trescientos noventa y cuatro
veintiocho mil ciento ochenta y nueve
ochenta y un mil cuatrocientos treinta y nueve
mil ochocientos nueve
sesenta mil quinientos once
sesenta mil ochocientos cuarenta y cuatro
sesenta y ocho mil trescientos treinta y seis
noventa y dos mil ochocientos seis
veintiocho mil veinte
treinta y cuatro mil seiscientos ochenta y uno
setenta mil ochocientos dos
cuarenta y cinco mil doscientos veintidós
sesenta y dos mil quinientos uno
veintiséis mil ochenta
noventa y nueve mil quinientos noventa y uno
once mil ochocientos setenta y cuatro
noventa y cuatro mil seiscientos ochenta y siete
sesenta y cuatro mil quinientos siete
cincuenta y un mil veintisiete
ochenta y siete mil quinientos diez
diez mil trescientos veintiuno
once mil cuatrocientos setenta y uno
cuarenta y cinco mil cuatrocientos setenta y siete
veintiséis mil ochocientos ochenta y siete
ochenta y nueve mil quinientos ochenta y uno
ochenta y un mil seiscientos setenta y cuatro
cincuenta y siete mil doscientos setenta y seis
cincuenta y cinco mil ciento siete
setenta y seis mil doscientos treinta y siete
noventa y ocho mil setecientos noventa y dos
cuarenta y cuatro mil quinientos siete
seis mil doscientos cincuenta y siete
doce mil cuatrocientos cuarenta y tres
noventa mil ochocientos dos
noventa y seis mil ciento sesenta y siete
cincuenta y siete mil seiscientos diecinueve
sesenta y siete mil seiscientos sesenta
ochenta y siete mil novecientos once
sesenta y ocho mil ciento ochenta y tres
cuarenta y cuatro mil treinta y cinco
veintidós mil novecientos sesenta y ocho
cincuenta y dos mil ciento ochenta y seis
cuarenta y cinco mil ochocientos setenta y tres
trece mil setecientos dos
sesenta y nueve mil trescientos siete
tres mil quinientos cuarenta y seis
setenta y un mil ciento cincuenta y siete
ochenta mil doscientos cincuenta y nueve
cuarenta y dos mil ciento noventa y cuatro
veinticuatro mil doscientos dos
sesenta y cinco mil quinientos treinta y siete
tres mil doscientos cuarenta y uno
cuarenta y un mil seiscientos noventa
sesenta y un mil trescientos noventa y cinco
veinticuatro mil trescientos sesenta y seis
diecinueve mil setecientos ochenta y cuatro
ochenta y siete mil quinientos cincuenta y uno
treinta y cinco mil doscientos noventa y dos
ochenta y ocho mil trescientos cincuenta y cuatro
treinta y dos mil seiscientos doce
setenta mil ciento setenta y seis
nueve mil seiscientos treinta y uno
cincuenta y cinco mil trescientos nueve
cuarenta y siete mil ciento noventa y ocho
cuarenta y cinco mil cuatrocientos cuarenta
treinta y nueve mil ochocientos cuatro
setenta y cuatro mil quinientos treinta y cuatro
dieciséis mil cuatrocientos cincuenta y nueve
cuarenta y un mil ciento sesenta y tres
ochenta y tres mil trescientos cinco
treinta y dos mil setecientos cincuenta y nueve
cincuenta y nueve mil doce
noventa y cinco mil novecientos cincuenta y siete
noventa y cinco mil setenta y uno
noventa y nueve mil novecientos setenta y dos
veintidós mil trescientos noventa y uno
treinta y cinco mil ciento quince
ochenta y cinco mil doscientos sesenta y tres
cuarenta y ocho mil seiscientos uno
veintiún mil trescientos treinta y cinco
ochenta y dos mil cincuenta
cuarenta mil trescientos noventa y cinco
sesenta y dos mil ochocientos noventa y uno
veintidós mil setecientos diez
setenta y tres mil quinientos setenta y nueve
cincuenta y dos mil ochocientos tres
cuarenta mil veintiocho
treinta y dos mil quinientos treinta y nueve
cincuenta y cinco mil novecientos treinta y siete
diecinueve mil quinientos treinta y seis
setenta y cuatro mil noventa y tres
sesenta y dos mil ciento ochenta y cuatro
cincuenta y un mil quinientos ochenta y dos
siete mil setecientos dieciséis
diecinueve mil novecientos cincuenta y ocho
cuarenta y nueve mil ciento cincuenta y dos
sesenta y un mil noventa y ocho
cuarenta y tres mil ochocientos noventa y seis
sesenta y cinco mil novecientos quince
noventa mil quinientos veintidós
noventa y dos mil ciento catorce
ochenta y cuatro mil setecientos veintiséis
quince mil sesenta y nueve
cuarenta y ocho mil doscientos ochenta y cuatro
cuarenta y cuatro mil novecientos setenta
noventa y ocho mil quinientos noventa y nueve
cincuenta y un mil ochocientos ochenta y siete
cincuenta y nueve mil doscientos trece
sesenta y seis mil doscientos veintidós
setenta y tres mil quinientos treinta y dos
noventa y ocho mil cuatrocientos cuarenta
cincuenta y tres mil ciento tres
sesenta y un mil doscientos cincuenta y tres
cuarenta y un mil novecientos setenta y dos
nueve mil ochocientos cuarenta
cincuenta y cuatro mil trescientos treinta y siete
ochenta y cinco mil trescientos sesenta y seis
mil quinientos setenta y nueve
cincuenta y nueve mil quinientos cuarenta y seis
cincuenta y seis mil novecientos setenta y uno
sesenta y nueve mil novecientos quince
setenta y seis mil quinientos ochenta y siete
setenta y dos mil ciento treinta y tres
ochenta y seis mil ciento trece
treinta y tres mil treinta y uno
veintitrés mil doscientos once
siete mil setecientos ochenta y siete
ochenta y siete mil veintitrés
cincuenta mil ciento ochenta y tres
sesenta y siete mil doscientos cincuenta y nueve
noventa y un mil quinientos dieciséis
veintisiete mil ciento noventa y seis
veinticinco mil ochocientos quince
nueve mil seiscientos noventa y dos
setenta y nueve mil trescientos cincuenta y seis
cuatrocientos treinta y seis
cuarenta mil ochenta y cinco
sesenta y seis mil seiscientos sesenta y tres
cincuenta y cuatro mil cuatrocientos diecinueve
veintiocho mil ciento dieciséis
treinta y cuatro mil ochocientos setenta y tres
cincuenta y ocho mil doscientos quince
treinta y cinco mil setecientos ochenta
treinta y tres mil seiscientos sesenta y nueve
nueve mil seiscientos cincuenta y tres
cincuenta y seis mil setenta y nueve
sesenta y cinco mil cuatrocientos sesenta y siete
veinticinco mil quinientos cinco
ochenta y seis mil quinientos noventa
doscientos cincuenta y nueve
quince mil doscientos noventa y cuatro
ocho mil quinientos cincuenta y cuatro
noventa y dos mil setecientos catorce
ochenta y cinco mil ochocientos cuarenta y dos
setenta y seis mil siete
diecinueve mil quinientos seis
setenta y seis mil cuatrocientos ochenta y seis
cuarenta y dos mil quinientos cuarenta y tres
sesenta y siete mil doscientos cuarenta y siete
cuarenta y cinco mil ciento cincuenta
setenta mil novecientos noventa y dos
sesenta y ocho mil ochenta y dos
noventa y ocho mil sesenta y dos
setenta y cuatro mil cuatrocientos treinta y dos
setenta y tres mil seiscientos setenta y nueve
cincuenta y seis mil cuatrocientos cuarenta y seis
diecisiete mil quinientos ochenta y dos
veintisiete mil novecientos ochenta y dos
cincuenta y ocho mil doscientos doce
veintiséis mil setecientos cuarenta y nueve
noventa y nueve mil setecientos treinta y uno
dieciocho mil quinientos setenta y siete
setenta y siete mil ciento veintidós
cuatro mil doscientos sesenta y tres
cuarenta y ocho mil seiscientos ocho
trece mil setecientos veintiséis
cincuenta y nueve mil seiscientos treinta y siete
veinticinco mil seiscientos treinta y uno
ochenta y cuatro mil ochocientos
sesenta y dos mil ochocientos cincuenta
setenta mil cuatrocientos noventa y tres
treinta y seis mil cuatrocientos noventa y tres
noventa y un mil cuatrocientos ochenta
noventa y seis mil doscientos setenta y ocho
setenta y siete mil trescientos cinco
cuarenta y un mil sesenta y siete
cincuenta y dos mil doscientos cincuenta y tres
sesenta y ocho mil ochocientos cuarenta y cinco
cinco mil novecientos ochenta y seis
noventa y seis mil doscientos treinta y ocho
cincuenta y cuatro mil novecientos noventa y ocho
sesenta y tres mil ochocientos once
ochenta y nueve mil trescientos cincuenta y uno
ochenta y tres mil novecientos treinta
cincuenta y tres mil ciento sesenta y uno
doce mil veinticuatro
dos mil ochocientos noventa y ocho
noventa y cuatro mil setecientos veintinueve
ocho mil novecientos cincuenta
treinta y tres mil cuatrocientos noventa y seis
treinta y seis mil seiscientos setenta y dos
treinta y nueve mil novecientos setenta y ocho
veintinueve mil setecientos cuatro
ochenta y siete mil cuatrocientos ochenta y nueve
sesenta y cinco mil quinientos sesenta
sesenta y cinco mil ciento setenta y uno
dieciocho mil cuatrocientos cuarenta y seis
veintiséis mil doscientos veintisiete
cuatro mil trescientos tres
noventa y tres mil quinientos noventa y cuatro
setenta y tres mil quinientos veintiuno
cincuenta y nueve mil dieciséis
noventa y ocho mil ciento cincuenta y dos
treinta y cuatro mil quinientos sesenta y seis
ochenta y nueve mil ciento cinco
cincuenta y un mil trescientos sesenta y cinco
setenta y nueve mil novecientos setenta y tres
noventa y cinco mil setecientos setenta y siete
setenta y tres mil cuatrocientos cincuenta y siete
dieciocho mil doscientos treinta y seis
ochenta y cinco mil trescientos treinta y ocho
diecisiete mil cuatro
trece mil novecientos sesenta y siete
treinta y cuatro mil setecientos noventa y nueve
cincuenta y cinco mil trescientos noventa y seis
ochenta mil doscientos cuarenta y ocho
cuarenta y ocho mil ochocientos treinta y seis
cuarenta y ocho mil setecientos noventa y nueve
cuarenta y tres mil trescientos treinta y cuatro
sesenta y cinco mil doscientos veintiséis
noventa y un mil cuatrocientos noventa y dos
setenta mil novecientos cuatro
cincuenta y un mil trescientos ochenta y dos
veintiocho mil cuatrocientos cuarenta y nueve
dieciocho mil doscientos noventa y seis
cuatro mil setecientos treinta y seis
treinta y cuatro mil ochocientos setenta y nueve
cincuenta y tres mil novecientos veintiocho
once mil setecientos cincuenta y ocho
treinta y dos mil quinientos dieciséis
seis mil doscientos cincuenta y tres
ochenta y dos mil doscientos noventa y uno
ochenta y seis mil ochocientos ochenta y uno
cincuenta y seis mil seiscientos sesenta y cinco
treinta y seis mil ochenta y nueve
setenta y cuatro mil trescientos ochenta y dos
once mil novecientos ochenta y cinco
ochenta y nueve mil trescientos cincuenta y seis
veintiún mil ochocientos cincuenta y dos
noventa y cinco mil ochocientos veintinueve
ochenta y cuatro mil ochocientos setenta y nueve
cincuenta y cuatro mil doscientos dieciséis
ochenta y cinco mil cuatrocientos sesenta
cinco mil ochocientos veinte
doce mil cuarenta y seis
sesenta y cuatro mil setecientos noventa y ocho
setenta y ocho mil quinientos uno
setenta mil ciento treinta y cinco
veintisiete mil doscientos cincuenta y seis
noventa y un mil ochocientos cincuenta y cinco
noventa y ocho mil seiscientos dos
noventa y siete mil ciento dieciséis
cincuenta y cinco mil ciento noventa y cuatro
noventa mil novecientos cincuenta
dieciocho mil cuatrocientos siete
diez mil novecientos cuarenta y siete
ocho mil setecientos setenta y cinco
once mil novecientos treinta y nueve
noventa y cinco mil trescientos sesenta y ocho
sesenta y cinco mil doscientos cincuenta y nueve
cuarenta y dos mil novecientos ocho
treinta y dos mil quinientos noventa y dos
sesenta y tres mil doscientos trece
veintiún mil ochocientos cinco
quince mil seiscientos ochenta y nueve
treinta y nueve mil doscientos cuarenta y tres
diez mil ochocientos ochenta y cinco
cuarenta y siete mil dos
veintiséis mil noventa y ocho
cincuenta y cinco mil sesenta
veinticinco mil doscientos cincuenta y dos
cincuenta y un mil ciento cuarenta y nueve
ochenta mil seiscientos noventa y tres
cuarenta y ocho mil cuatrocientos trece
siete mil quinientos noventa y dos
ochenta y un mil noventa y cinco
ochenta y seis mil doscientos nueve
ocho mil dos
veintiséis mil setenta y cuatro
doce mil doscientos veintiséis
ochenta y un mil ciento treinta y tres
noventa y tres mil trescientos treinta y uno
ochenta y cuatro mil trescientos cuarenta y uno
setenta y cinco mil novecientos sesenta y seis
cuarenta y ocho mil setecientos quince
treinta y siete mil seiscientos cincuenta y cuatro
cincuenta y siete mil doscientos trece
ochenta y siete mil novecientos diecisiete
sesenta y un mil novecientos cuatro
treinta y cuatro mil ochenta y dos
tres mil seiscientos quince
setenta y dos mil cuatrocientos setenta y cinco
ochenta y ocho mil ciento sesenta y siete
setenta y un mil trescientos sesenta y cinco
cuarenta y seis mil quinientos veintisiete
ochenta y seis mil ciento ochenta y ocho
cincuenta y nueve mil ochenta y uno
veintidós mil seiscientos veinte
treinta mil setecientos veintiuno
sesenta y siete mil cuatrocientos setenta y cuatro
treinta y tres mil seiscientos cincuenta y ocho
once mil cuarenta y cuatro
cincuenta y tres mil trescientos sesenta
cuatro mil doscientos noventa y seis
doscientos setenta
ochenta y siete mil trescientos setenta y nueve
ochenta y tres mil doscientos veintiuno
doce mil cuatrocientos cincuenta y dos
siete mil doscientos cuarenta
sesenta y siete mil trescientos cincuenta y nueve
dos mil treinta y nueve
catorce mil trescientos treinta y seis
noventa y ocho mil ochocientos trece
treinta y nueve mil seiscientos ocho
sesenta y un mil quinientos cincuenta y cuatro
treinta y nueve mil setecientos cincuenta y uno
noventa y tres mil seiscientos ochenta y siete
sesenta y cinco mil seiscientos cincuenta y siete
cincuenta y un mil novecientos setenta y uno
sesenta y ocho mil trescientos sesenta y siete
nueve mil doscientos cuarenta y seis
trescientos ochenta y seis
cuarenta y ocho mil once
treinta y seis mil ciento cincuenta y ocho
veinte mil quinientos setenta y tres
cincuenta y nueve mil trescientos once
ciento cincuenta y seis
setenta y un mil ciento ochenta y cinco
dieciocho mil quinientos cincuenta y seis
ochenta y nueve mil treinta y siete
cuarenta y nueve mil setecientos dos
treinta y cinco mil doscientos setenta y dos
dieciséis mil cuatrocientos ochenta y dos
veinte mil quinientos cuarenta y tres
ochenta y nueve mil veinticinco
cuarenta y cinco mil ochocientos sesenta y tres
ochenta y cuatro mil setecientos setenta y ocho
diecinueve mil cuatrocientos seis
ciento doce
veinticuatro mil seis
cincuenta y seis mil novecientos quince
cincuenta y cinco mil setecientos sesenta y cuatro
quinientos sesenta
ochenta y seis mil novecientos cincuenta y ocho
cincuenta y nueve mil novecientos veintisiete
siete mil setecientos ochenta y nueve
treinta y un mil seiscientos veintiuno
setenta mil seiscientos ochenta y dos
setenta y dos mil seiscientos cincuenta y cinco
ochenta y seis mil cuarenta y cinco
setenta y tres mil doscientos ochenta y dos
once mil quinientos cuarenta y nueve
diecinueve mil seiscientos treinta
sesenta y cinco mil quinientos veintitrés
dieciséis mil trescientos cincuenta y ocho
catorce mil setecientos setenta y tres
veintiocho mil treinta
quince mil novecientos cincuenta y nueve
setenta y un mil setecientos veintisiete
cuarenta y seis mil cuatrocientos cuarenta y uno
ochenta mil quinientos treinta y dos
sesenta y ocho mil doscientos cuarenta y uno
dieciocho mil novecientos diez
cuarenta y nueve mil quinientos dieciséis
tres mil seiscientos cincuenta y tres
sesenta y un mil seiscientos nueve
setenta y nueve mil trescientos cincuenta y uno
cuarenta y dos mil ciento sesenta y nueve
sesenta y tres mil ciento setenta y seis
cuarenta mil doscientos cincuenta y seis
diecisiete mil ochocientos veintiuno
cinco mil quinientos setenta y tres
cincuenta y cuatro mil quinientos setenta y cuatro
diecinueve mil cuatrocientos treinta y dos
setenta y tres mil setecientos seis
cuarenta y un mil cuatrocientos ochenta
noventa y ocho mil quinientos quince
sesenta y cuatro mil cuatrocientos veintisiete
treinta y siete mil ochocientos sesenta y tres
setenta y tres mil novecientos noventa y ocho
noventa mil setenta y tres
treinta y cinco mil cuatrocientos cincuenta y nueve
cuarenta y dos mil seiscientos tres
noventa y un mil doce
setenta y siete mil setecientos veinte
doce mil doscientos cincuenta y siete
setecientos ochenta y nueve
treinta y seis mil quinientos ochenta y cuatro
sesenta y cuatro mil doscientos once
treinta y tres mil setecientos cincuenta y siete
cuarenta mil doscientos dieciocho
sesenta y dos mil quinientos ochenta y tres
setenta y cinco mil setenta y dos
mil doscientos diecisiete
cuarenta y un mil quinientos treinta
novecientos diez
ochenta y seis mil ochocientos veintitrés
ochenta y seis mil seiscientos sesenta y uno
treinta y tres mil cuatrocientos setenta y seis
noventa y seis mil ciento cincuenta y cuatro
cuarenta y un mil cuarenta y dos
treinta y nueve mil setecientos trece
noventa y un mil ciento setenta y nueve
treinta y nueve mil trescientos treinta y dos
cincuenta mil ciento sesenta y cinco
veinticuatro mil cuatrocientos cuatro
setenta y nueve mil ochocientos treinta y siete
noventa y ocho mil novecientos siete
veintitrés mil trescientos treinta y tres
sesenta mil ochocientos setenta y tres
ochenta y nueve mil setecientos
treinta y seis mil ciento noventa y siete
cuarenta y nueve mil novecientos sesenta y siete
cincuenta y tres mil quinientos treinta y cinco
veinticinco mil ochocientos cincuenta y ocho
catorce mil cuatrocientos sesenta
ochenta y un mil cuatrocientos sesenta y uno
treinta y nueve mil ochenta y siete
cincuenta mil diecisiete
veintitrés mil cuatrocientos veintinueve
cuatro mil quinientos quince
tres mil novecientos veintidós
cuarenta y nueve mil trescientos noventa y tres
ochenta y nueve mil quinientos cuatro
veintitrés mil cuatrocientos cuarenta y uno
cincuenta y un mil doscientos cincuenta
treinta y nueve mil ochocientos setenta y cinco
setenta y un mil seiscientos treinta y cuatro
ochenta y cinco mil sesenta y cuatro
setenta mil seiscientos ochenta y cuatro
siete mil ciento treinta y dos
treinta y nueve mil doscientos setenta y uno
veintiocho mil setecientos cincuenta y nueve
setenta y dos mil novecientos cuarenta y tres
quince mil quinientos cuarenta y seis
sesenta y ocho mil quinientos veintiuno
cuarenta y un mil doscientos treinta y seis
ochenta y nueve mil novecientos sesenta y uno
catorce mil ciento sesenta y ocho
noventa mil cuatrocientos ocho
mil ochocientos sesenta y tres
cuarenta y dos mil setecientos cincuenta y cuatro
veinticinco mil novecientos tres
cincuenta y un mil setecientos setenta y siete
sesenta y cinco mil cuatrocientos cincuenta y seis
ochenta y tres mil ochenta y ocho
noventa y tres mil seiscientos cuarenta y cinco
veintidós mil seiscientos
setenta y nueve mil ciento dieciocho
cuarenta y cinco mil setecientos setenta y ocho
sesenta mil ochocientos cinco
setenta y tres mil novecientos veinte
veintidós mil seiscientos cuarenta y uno
ochenta mil seiscientos uno
veintinueve mil quinientos sesenta y cuatro
sesenta y ocho mil ciento veintidós
cuarenta y dos mil trescientos cuarenta
noventa y un mil doscientos cuatro
noventa mil doscientos treinta
setenta y nueve mil ciento setenta
diez mil quinientos sesenta y siete
cincuenta y seis mil novecientos dieciocho
tres mil seiscientos sesenta
setenta y cuatro mil novecientos setenta
sesenta y siete mil setenta y uno
veintitrés mil trescientos doce
cuarenta y ocho mil quinientos setenta y ocho
cuarenta mil cuatrocientos noventa y dos
veintiún mil trescientos cincuenta y siete
veinte mil ochocientos noventa y dos
noventa y dos mil quinientos noventa y ocho
ochenta y nueve mil ochocientos cuarenta y seis
ochenta y cuatro mil ciento cuarenta y siete
sesenta y dos mil cuatrocientos nueve
treinta y nueve mil diecisiete
ochenta y tres mil setecientos veintiuno
veintidós mil cuatrocientos noventa y siete
setenta y siete mil ochocientos sesenta
treinta y cinco mil ciento ochenta
ocho mil quinientos setenta y cinco
cuarenta y ocho mil setecientos ochenta
cuarenta y un mil quinientos ochenta y nueve
veintitrés mil quinientos ochenta y seis
treinta mil trescientos veintiuno
cincuenta y ocho mil cuatrocientos cuatro
veintiocho mil noventa y nueve
sesenta mil trescientos setenta y cinco
cincuenta y seis mil seiscientos veintiocho
noventa mil cuatrocientos doce
noventa y tres mil ciento noventa y cinco
cuarenta y un mil novecientos treinta y nueve
ochenta y siete mil ochocientos cincuenta y siete
sesenta y nueve mil ochocientos setenta y nueve
ochenta y cinco mil cuatrocientos cuarenta y cuatro
cuarenta y cuatro mil seiscientos veintiséis
ochenta y nueve mil cuarenta y dos
treinta y ocho mil ochocientos veinticuatro
sesenta y cuatro mil setecientos veintiséis
veintiséis mil cien
setenta y cinco mil doscientos cuarenta y ocho
cuarenta mil ochocientos diecisiete
ocho mil novecientos cincuenta y ocho
setenta y siete mil ochocientos cincuenta y nueve
treinta y seis mil sesenta y ocho
diecisiete mil trescientos ochenta y tres
sesenta mil seiscientos treinta y ocho
catorce mil seiscientos sesenta
noventa y ocho mil novecientos veintidós
cuarenta y cinco mil trescientos veinte
ochenta y cuatro mil novecientos cuarenta y tres
siete mil treinta y seis
treinta y cinco mil doscientos cincuenta y nueve
trescientos setenta y ocho
cincuenta y ocho mil cuatrocientos noventa y cinco
ocho mil setecientos sesenta y cuatro
sesenta y seis mil setecientos treinta y cinco
tres mil trescientos ochenta y cinco
veintiséis mil seiscientos treinta y tres
setenta y cuatro mil trescientos setenta y cuatro
treinta y cinco mil setecientos noventa y cinco
nueve mil ciento noventa
tres mil setenta
cuarenta y dos mil ochocientos once
siete mil setecientos treinta y cinco
tres mil cuatrocientos veintitrés
ochenta y dos mil trescientos cuatro
sesenta y tres mil cuatrocientos noventa y cuatro
setenta y cinco mil ochocientos treinta y tres
ochenta y nueve mil setecientos noventa y cuatro
diecisiete mil cuatrocientos noventa y seis
noventa y un mil cuatrocientos cincuenta y ocho
treinta y seis mil setecientos cincuenta y tres
veintisiete mil ochocientos cuarenta y cuatro
treinta y siete mil cuatrocientos sesenta y dos
ochenta y ocho mil doscientos setenta y uno
noventa y nueve mil seiscientos cincuenta y seis
noventa mil cuatrocientos veintinueve
diez mil ciento ochenta y siete
cincuenta y nueve mil cuatrocientos setenta y nueve
treinta y tres mil quinientos sesenta y cuatro
cinco mil ochocientos cuatro
nueve mil sesenta y dos
ochenta y siete mil setecientos sesenta y nueve
catorce mil seiscientos cincuenta y uno
cuarenta y dos mil seiscientos diez
cincuenta y nueve mil ciento treinta y uno
cinco mil cuarenta y cuatro
sesenta y nueve mil setecientos noventa y tres
ochenta y cuatro mil ochocientos uno
treinta mil doscientos setenta y seis
diez mil quinientos noventa y ocho
veinticinco mil setecientos diecinueve
veinticinco mil cincuenta y dos
treinta y cuatro mil seiscientos veintisiete
cincuenta y nueve mil ochenta y seis
treinta y cinco mil cincuenta y cinco
setenta y cuatro mil trescientos noventa y seis
ochenta y siete mil cuatrocientos doce
setenta y ocho mil novecientos cuarenta y siete
mil trescientos veintitrés
treinta y nueve mil seiscientos noventa y ocho
quince mil seiscientos veintisiete
sesenta y tres mil seiscientos diez
cuarenta y ocho mil trescientos veinte
catorce mil seiscientos noventa y ocho
quince mil ochocientos quince
setenta y seis mil ciento cincuenta y tres
treinta y un mil quinientos cincuenta y seis
noventa y un mil doscientos treinta y cinco
ochenta y nueve mil trescientos setenta y uno
setenta y ocho mil novecientos veintinueve
cuarenta y cuatro mil doscientos noventa y cinco
sesenta y nueve mil ciento noventa y cinco
veintidós mil doscientos cincuenta y cinco
doce mil cuatrocientos quince
noventa y cuatro mil novecientos noventa y cinco
dieciséis mil quinientos setenta y cuatro
cuarenta y nueve mil ochocientos cuarenta y siete
mil cuatrocientos cuarenta y ocho
seis mil quinientos cuarenta y tres
treinta y nueve mil ochocientos cuarenta y dos
sesenta y tres mil seiscientos nueve
once mil quinientos sesenta
noventa y seis mil cuatrocientos veintinueve
ochenta mil ochocientos noventa y tres
setenta y cuatro mil doscientos cuarenta y dos
cincuenta y seis mil setecientos veintisiete
cinco mil sesenta y seis
quince mil seiscientos treinta
ochenta y tres mil novecientos trece
ochenta y dos mil doscientos setenta y ocho
setenta y tres mil novecientos sesenta y seis
dos mil ochocientos cincuenta y cinco
cincuenta y nueve mil ochocientos veinticuatro
ochenta y seis mil cuatrocientos veintiuno
treinta y un mil quinientos diecinueve
treinta y cinco mil setecientos trece
veintinueve mil trescientos dieciséis
cincuenta mil doscientos noventa y dos
treinta y ocho mil ciento uno
nueve mil doscientos treinta y tres
noventa y cuatro mil novecientos treinta y tres
cincuenta y nueve mil cuatrocientos treinta y seis
cuarenta y cuatro mil trescientos veintiuno
setenta y ocho mil cuatrocientos veintiséis
setenta y cinco mil ciento ochenta y cinco
veintiún mil ciento treinta y cinco
setenta y cuatro mil ciento dieciséis
treinta y dos mil novecientos cuarenta y siete
cincuenta y tres mil doscientos setenta y nueve
sesenta y dos mil ciento ochenta y tres
cincuenta y ocho mil quinientos setenta y dos
cuarenta y siete mil novecientos sesenta y cinco
sesenta y siete mil seiscientos sesenta y cinco
setenta y seis mil quinientos seis
cincuenta y seis mil ciento ochenta y tres
noventa y nueve mil cuatrocientos treinta y nueve
veinticinco mil ciento ochenta y cinco
sesenta y un mil setecientos sesenta y cinco
cincuenta mil ciento quince
dieciocho mil seiscientos ochenta y tres
veintiún mil quinientos sesenta y cinco
noventa mil setecientos seis
sesenta y ocho mil seiscientos ochenta y cinco
setenta y tres mil trescientos setenta
sesenta y ocho mil novecientos treinta y ocho
noventa mil ciento sesenta y nueve
ochenta y tres mil novecientos cincuenta y cuatro
cuatro mil ciento veintinueve
noventa y siete mil ciento diez
ochenta y siete mil novecientos cuarenta
diecinueve mil seiscientos ocho
setenta y ocho mil setecientos ochenta y tres
veintinueve mil ciento nueve
setenta y siete mil trescientos once
cincuenta y cuatro mil setecientos cinco
sesenta y tres mil cuatrocientos cuarenta y cuatro
tres mil setecientos noventa y cinco
cincuenta y dos mil noventa
veintisiete mil cuatrocientos diecisiete
noventa y tres mil doscientos setenta y cinco
setenta y cuatro mil quinientos treinta y uno
cuarenta mil novecientos tres
cincuenta y cuatro mil trescientos cuarenta y cinco
cincuenta y cinco mil setecientos ochenta y cinco
cuarenta y cinco mil noventa y seis
siete mil seiscientos
treinta y nueve mil setenta y siete
treinta y un mil ochocientos veinticuatro
veintiún mil doscientos noventa y cinco
treinta y un mil novecientos cuatro
setenta y siete mil setecientos setenta y cuatro
treinta y cinco mil seiscientos cuarenta y tres
treinta y tres mil novecientos cincuenta y cinco
sesenta y siete mil novecientos ochenta y dos
veintidós mil doscientos cinco
noventa y cuatro mil doscientos cuarenta y cuatro
cuarenta y un mil ciento sesenta
cinco mil cuatrocientos tres
veintinueve mil trescientos veintiséis
noventa y seis mil trescientos setenta y tres
setenta y seis mil cuatrocientos noventa y tres
ochenta y ocho mil ochocientos cuarenta y tres
cuarenta y cinco mil novecientos noventa y dos
ochenta y seis mil seiscientos cincuenta y nueve
setenta y nueve mil setecientos cuarenta y ocho
sesenta y un mil cuatrocientos veintiséis
ochenta y nueve mil setecientos veinte
sesenta y ocho mil trescientos setenta y dos
cincuenta y cuatro mil cuatrocientos diez
cincuenta y dos mil seiscientos cuarenta
tres mil ciento ochenta y dos
sesenta y dos mil veintinueve
sesenta y nueve mil setecientos setenta y nueve
sesenta y un mil novecientos noventa y cuatro
catorce mil ciento cuarenta y cuatro
cincuenta mil quinientos quince
veintinueve mil seiscientos sesenta y dos
tres mil cuatrocientos treinta y ocho
doce mil ciento setenta y tres
sesenta y seis mil novecientos treinta y cuatro
setenta y ocho mil ciento sesenta y cuatro
setenta y tres mil ochenta y uno
cincuenta y un mil novecientos treinta
noventa y cinco mil setecientos setenta y ocho
cuarenta y tres mil cincuenta y ocho
quince mil setecientos sesenta y tres
setenta y un mil ochocientos ochenta y tres
sesenta y nueve mil seiscientos treinta y uno
ocho mil ciento setenta y tres
sesenta mil setecientos veintiséis
veintidós mil trescientos setenta y seis
diecinueve mil doscientos
cincuenta y un mil trescientos setenta y ocho
setenta y un mil ciento uno
noventa y tres mil setecientos ochenta y uno
cuarenta mil ochocientos cinco
veintiún mil ciento cincuenta y seis
ochenta y nueve mil trescientos setenta
noventa y cuatro mil seiscientos sesenta y dos
ochenta mil doscientos setenta
treinta y cuatro mil novecientos noventa y uno
cuarenta y cinco mil trescientos sesenta y cuatro
catorce mil trescientos cincuenta y cinco
cincuenta y cuatro mil setecientos ochenta y ocho
ochenta y cuatro mil seiscientos noventa y tres
noventa y siete mil ciento cuarenta y cuatro
noventa y cinco mil cuatrocientos cincuenta y siete
cuarenta y dos mil ochocientos treinta y ocho
ochenta y un mil setecientos treinta
cincuenta mil quinientos setenta y tres
seis mil seiscientos cincuenta y cinco
cinco mil setecientos treinta y ocho
setenta mil ciento ochenta y dos
cuatro mil novecientos cuarenta y seis
setenta y ocho mil setecientos cincuenta y uno
setenta y un mil quinientos noventa y seis
setenta y nueve mil doscientos noventa y ocho
diez mil seiscientos ochenta y dos
setenta mil quinientos sesenta y seis
cincuenta y tres mil quinientos cuarenta y uno
treinta y cinco mil sesenta
cuarenta mil ciento veinticuatro
cincuenta y cinco mil doscientos cuarenta y seis
ochenta y cinco mil quinientos doce
sesenta y tres mil ochocientos treinta y ocho
sesenta y un mil seiscientos noventa y ocho
nueve mil seiscientos cuarenta y cinco
ochenta y siete mil trescientos cincuenta y dos
sesenta y cinco mil veintiuno
ochenta y nueve mil quinientos noventa y uno
cincuenta y seis mil treinta
trece mil setecientos ochenta
cincuenta y cinco mil ochocientos sesenta y tres
veintitrés mil ochocientos veintisiete
veintiún mil cuarenta y cinco
cuarenta y nueve mil seiscientos cincuenta y ocho
treinta y siete mil novecientos noventa y cinco
treinta y cuatro mil ochocientos treinta y dos
cincuenta y seis mil quinientos cincuenta y uno
cincuenta y ocho mil cuatrocientos treinta y dos
noventa y seis mil doscientos setenta y uno
nueve mil doscientos ochenta
ocho mil ciento noventa y tres
cuarenta mil cuatrocientos cincuenta y dos
cuarenta y ocho mil seiscientos noventa y uno
mil cuatrocientos noventa y uno
sesenta mil setecientos sesenta y nueve
once mil ciento veinticuatro
treinta y cinco mil setecientos ochenta y dos
treinta y un mil setecientos noventa
setenta y cinco mil setecientos ochenta y cuatro
quince mil quinientos cuarenta y cuatro
quince mil veintitrés
cuatro mil trescientos sesenta
sesenta y un mil setecientos ochenta y seis
cuarenta y seis mil quinientos veintiocho
cincuenta y siete mil novecientos cincuenta y cinco
treinta y cinco mil nueve
sesenta y cinco mil doscientos dieciséis
ochenta y ocho mil quinientos dieciséis
ochenta y tres mil trescientos ochenta y dos
cincuenta y siete mil ciento ochenta y nueve
tres mil novecientos setenta y seis
ochenta y cuatro mil seiscientos cincuenta y ocho
cincuenta y cinco mil quinientos diecisiete
veintitrés
sesenta y un mil ochocientos setenta y siete
ciento cincuenta y ocho
sesenta y dos mil cuatrocientos doce
cincuenta y tres mil doscientos ochenta y nueve
veintidós mil cuatrocientos sesenta y siete
ochenta y nueve mil ciento veintiuno
cuarenta y nueve mil doscientos treinta y ocho
dieciséis mil cuatrocientos veinte
diecisiete mil treinta y uno
sesenta y dos mil ochocientos sesenta y ocho
setenta mil cuatrocientos veinte
cincuenta y cuatro mil trescientos ocho
quince mil cuatrocientos cincuenta y ocho
ochenta y dos mil seiscientos dieciocho
sesenta y cuatro mil cuatrocientos treinta y tres
ochenta y dos mil sesenta y ocho
nueve mil setecientos siete
dos mil setecientos setenta y seis
sesenta y ocho mil cuatrocientos noventa y cinco
cuarenta y dos mil ciento setenta y nueve
ochenta y ocho mil quinientos siete
cincuenta y cinco mil ciento ochenta y uno
ochenta y ocho mil doscientos noventa y cinco
cincuenta mil ciento noventa y siete
cincuenta mil novecientos seis
cuarenta y ocho mil ciento setenta y dos
dieciocho mil ciento cincuenta
dos mil cuatrocientos treinta y cinco
cincuenta y dos mil cuatrocientos cinco
cincuenta y siete mil ciento setenta y uno
cincuenta y siete mil ochocientos diecisiete
ochenta y tres mil cuatrocientos noventa y uno
ochenta mil doscientos treinta y siete
sesenta y un mil seiscientos ochenta y uno
setenta y cuatro mil seiscientos ochenta y tres
treinta y nueve mil novecientos veintitrés
sesenta y cuatro mil ochocientos cincuenta y tres
noventa y dos mil setecientos veintiuno
ochenta y ocho mil quinientos sesenta y cuatro
treinta mil setecientos setenta y seis
cuarenta y dos mil trescientos catorce
quinientos diecisiete
noventa mil doscientos veinte
dieciocho mil seiscientos
ochenta y un mil doscientos veintisiete
doce mil treinta y cuatro
cuarenta y tres mil doscientos ochenta y cuatro
sesenta y un mil ochocientos veintiocho
cuatro mil ochocientos veintiséis
cincuenta y cinco mil cuarenta y cinco
ochenta y siete mil trescientos ochenta y seis
cuarenta mil ciento sesenta y siete
setenta y un mil seiscientos cuarenta y cuatro
sesenta y ocho mil quinientos treinta y uno
veintisiete mil quinientos treinta
quince mil ciento treinta y nueve
sesenta y tres mil quinientos dieciocho
veintisiete mil trescientos ochenta y tres
setenta y dos mil ciento veinticuatro
veintisiete mil ciento setenta y dos
diecinueve mil trescientos quince
noventa y un mil novecientos veintinueve
sesenta y ocho mil quinientos noventa y tres
cuarenta y cinco mil setecientos setenta y siete
ochenta y tres mil doscientos ochenta y ocho
cuarenta y dos mil ciento sesenta y dos
cincuenta y tres mil trescientos cincuenta y tres
cuarenta mil quinientos trece
cincuenta mil cuatrocientos ochenta y tres
setenta y cinco mil trescientos veinticinco
cincuenta mil quinientos setenta y seis
ocho mil ochocientos sesenta y siete
ochenta y dos mil ochocientos veintiséis
noventa y siete mil trescientos cuarenta y nueve
ochenta y siete mil doscientos veintidós
noventa y nueve mil trescientos treinta y dos
noventa mil setenta y cinco
cuarenta y cinco mil novecientos sesenta y siete
veintiséis mil ochocientos treinta y cinco
dieciocho mil quinientos quince
cinco mil setecientos treinta y uno
cuarenta y siete mil trescientos ochenta
dieciséis mil novecientos noventa y uno
siete mil doscientos diecinueve
setenta y nueve mil doscientos treinta y siete
setenta y cuatro mil novecientos setenta y ocho
cuatro mil setecientos nueve
mil doscientos noventa y dos
treinta y cinco mil ciento veintitrés
noventa y un mil doscientos noventa y ocho
quince mil setecientos treinta y ocho
cuarenta y siete mil ciento nueve
veinticuatro mil quinientos setenta y cuatro
ochenta mil setecientos setenta y uno
noventa y dos mil seiscientos sesenta y ocho
treinta y nueve mil cuatrocientos veintisiete
setenta y nueve mil trescientos ochenta y nueve
cincuenta y un mil seiscientos ochenta y tres
ochenta mil trescientos ochenta y nueve
siete mil ciento cuarenta y cuatro
treinta y seis mil setecientos siete
dos mil doscientos treinta y ocho
ochenta mil trescientos noventa y siete
catorce mil seiscientos setenta y siete
veintiún mil ochocientos diecisiete
cinco mil novecientos setenta
ochenta y ocho mil trescientos once
noventa y cinco mil doscientos nueve
ochenta mil setecientos cuarenta y cinco
setenta y ocho mil ciento ochenta y cinco
sesenta y seis mil novecientos diecisiete
veinticinco mil cuatrocientos ochenta
once mil trescientos ocho
cuarenta y seis mil doscientos cuarenta y nueve
treinta y dos mil quinientos doce
noventa y seis mil novecientos cuatro
noventa y tres mil cincuenta y dos
doce mil ochocientos tres
veintinueve mil novecientos noventa y seis
veintinueve mil quinientos tres
once mil cuatrocientos ochenta y uno
veintisiete mil ciento diecinueve
treinta y siete mil setecientos diecisiete
cincuenta y un mil quinientos treinta y cinco
seis mil ochocientos cuatro
ochenta y nueve mil quinientos treinta y dos
cincuenta y cuatro mil trescientos cuarenta y tres
veintitrés mil ciento ochenta y cuatro
noventa y nueve mil setecientos setenta y tres
veintidós mil quinientos veinticuatro
treinta y seis mil trescientos sesenta y uno
cincuenta y un mil seis
nueve mil ochocientos ochenta y seis
ochenta y tres mil seiscientos sesenta y dos
cuarenta y cuatro mil ochocientos veinte
ochenta y siete mil setecientos ochenta y dos
veintinueve mil novecientos
setenta y un mil trescientos cuarenta y siete
noventa y tres mil ciento noventa y cuatro
veinticuatro mil doscientos quince
cincuenta y tres mil ochocientos cuarenta y ocho
ochenta y seis mil trescientos veintinueve
noventa y cuatro mil ciento treinta y seis
ochenta y tres mil seiscientos doce
doce mil ciento veinticuatro
diecinueve mil doscientos cuarenta y ocho
diez mil quinientos noventa y dos
trece mil diecisiete
cincuenta y un mil doscientos quince
treinta y siete mil veintisiete
noventa y siete mil cuatrocientos veinticinco
nueve mil cuatrocientos cincuenta
cincuenta y nueve mil novecientos ocho
treinta y nueve mil setecientos cuarenta
mil ochocientos noventa y ocho
diez mil setecientos treinta y ocho
sesenta y dos mil ciento veintitrés
treinta y seis mil veintiséis
diecinueve mil trescientos setenta y uno
noventa y cuatro mil setecientos sesenta y uno
veintinueve mil setecientos treinta y nueve
ochenta y tres mil novecientos once
ochenta y siete mil novecientos cincuenta y ocho
dos mil cuarenta y dos
veinticinco mil setecientos veintisiete
dos mil ciento cuarenta y tres
setenta y nueve mil quinientos veintiuno
setenta mil novecientos ochenta y dos
setenta y cuatro mil quinientos treinta y tres
noventa y un mil quinientos seis
cincuenta y cinco mil sesenta y nueve
dos mil novecientos treinta y siete
ochenta y cuatro mil ciento siete
cincuenta y seis mil cuatrocientos treinta y ocho
veintiséis mil doscientos ochenta y nueve
diecisiete mil quinientos cuarenta y ocho
treinta mil quinientos cincuenta y seis
treinta y dos mil ciento noventa
siete mil novecientos seis
ocho mil seiscientos setenta
cuarenta y siete mil novecientos cincuenta y dos
noventa y un mil setecientos sesenta y nueve
noventa y siete mil quinientos treinta y ocho
setenta y seis mil setecientos cuarenta y seis
cincuenta y ocho mil seiscientos sesenta y tres
noventa y cinco mil seiscientos treinta y nueve
noventa y seis mil dos
sesenta y tres mil setecientos veintidós
treinta y seis mil setecientos sesenta y cuatro
diez mil ochocientos setenta y uno
ochenta mil novecientos veinticinco
setenta mil setecientos ochenta y tres
veintidós mil setecientos trece
veinticuatro mil treinta y dos
cuarenta mil quinientos setenta y seis
catorce mil ciento cincuenta y dos
veintiocho mil doscientos noventa y cuatro
once mil ochocientos dieciocho
sesenta y siete mil cuatrocientos treinta y dos
cincuenta y seis mil novecientos sesenta y dos
sesenta y dos mil setecientos cincuenta y cinco
setenta mil ciento noventa y seis
sesenta y cuatro mil seiscientos sesenta y siete
setenta y dos mil seiscientos setenta y cuatro
sesenta y siete mil cincuenta y dos
ochenta mil setecientos setenta y seis
setenta y un mil quinientos cuarenta y cuatro
treinta mil quinientos sesenta y siete
sesenta y siete mil doscientos cincuenta y siete
veinticuatro mil ciento nueve
treinta y dos mil quinientos setenta y nueve
setenta y nueve mil seiscientos noventa y dos
setenta y nueve mil doscientos siete
cincuenta y cinco mil ochocientos cincuenta y cuatro
cincuenta y ocho mil noventa y seis
veinticuatro mil novecientos cuarenta y siete
veinticinco mil ochocientos sesenta y siete
setenta y tres mil noventa y ocho
noventa y siete mil trescientos cincuenta y cuatro
ochenta y ocho mil quinientos veinticinco
treinta y siete mil seiscientos cuarenta y cuatro
sesenta y dos mil ciento setenta y siete
veinte mil quinientos dieciséis
cuarenta y cinco mil ochocientos nueve
cuarenta y dos mil treinta
ochenta y cinco mil ochenta y ocho
cuarenta y un mil novecientos uno
noventa y nueve mil ochocientos setenta y tres
setenta y seis mil seiscientos noventa y tres
setenta y nueve mil setenta y cuatro
cuarenta mil ochocientos treinta y nueve
cincuenta mil trescientos cuarenta y seis
ochenta y un mil quinientos sesenta y tres
sesenta y dos mil setecientos setenta y siete
setenta y ocho mil cuatrocientos setenta y uno
cincuenta y cuatro mil novecientos cincuenta
ochenta y tres mil doscientos setenta y seis
setenta y dos mil novecientos sesenta y tres
cincuenta y siete mil seiscientos once
treinta y seis mil cuatrocientos treinta y cinco
ochenta y dos mil ochocientos sesenta y cinco
sesenta y seis mil ciento treinta y cinco
catorce mil ciento cuarenta y seis
cincuenta y dos mil cuatrocientos sesenta
veintiséis mil cuatrocientos cuarenta y tres
cuarenta y seis mil ochocientos cincuenta y seis
setenta y ocho mil cuatrocientos ochenta y tres
veinticinco mil seiscientos setenta y ocho
sesenta mil quinientos cuarenta y tres
veintidós mil trescientos cuarenta
diecisiete mil doscientos veintidós
setenta y nueve mil quinientos veintiocho
treinta y dos mil cuarenta y tres
sesenta y ocho mil novecientos ochenta y uno
noventa y nueve mil cuatrocientos cuarenta
ochenta y cinco mil setecientos sesenta y cuatro
sesenta y cinco mil cuatrocientos diecisiete
setenta y ocho mil setecientos dieciséis
cuarenta y ocho mil cuarenta y nueve
nueve mil doscientos cuarenta y nueve
setenta mil ciento cincuenta y cinco
veintitrés mil veinticinco
ochenta y nueve mil ciento sesenta y seis
setenta y cinco mil quinientos treinta y seis
noventa mil novecientos noventa y tres
veintiún mil quinientos veinticuatro
sesenta y dos mil quinientos cincuenta y uno
veinte mil doscientos veintisiete
noventa y cinco mil quinientos cinco
setenta y tres mil cuatrocientos sesenta y ocho
noventa y un mil seiscientos sesenta y seis
noventa y seis mil cuatrocientos treinta y nueve
ochenta y cuatro mil veintitrés
treinta y cuatro mil cuatrocientos setenta y siete
diecinueve mil novecientos sesenta y nueve
cincuenta y seis mil seiscientos veintiséis
cincuenta mil setecientos sesenta y cuatro
noventa y cuatro mil quinientos veintiocho
veintiún mil ciento veintiocho
noventa mil ochocientos tres
veintidós mil seiscientos cinco
treinta y seis mil cuatrocientos cuarenta
veintitrés mil novecientos ochenta y seis
cuarenta y seis mil setecientos treinta y cuatro
siete mil seiscientos nueve
treinta y un mil seiscientos cuarenta y uno
ochenta y un mil treinta y cuatro
diecinueve mil seiscientos cuarenta y tres
diecinueve mil seiscientos setenta y siete
veintidós mil setecientos noventa y dos
diecisiete mil doscientos cincuenta y ocho
doce mil ciento treinta y ocho
sesenta y nueve mil seiscientos veintiocho
tres mil ochocientos veintisiete
setenta y tres mil seiscientos treinta y uno
noventa y cinco mil quinientos noventa y nueve
ochenta y un mil quinientos ochenta y tres
nueve mil quinientos setenta y ocho
veintitrés mil doscientos setenta y uno
once mil cuatrocientos sesenta y cinco
cincuenta y un mil seiscientos cuarenta y seis
treinta y cinco mil quinientos veinticuatro
setenta mil ciento sesenta
cuarenta y cinco mil quinientos sesenta y tres
cinco mil cuatrocientos treinta y tres
ochenta y ocho mil novecientos catorce
cincuenta y cuatro mil trescientos cincuenta y uno
veintitrés mil seiscientos veintiuno
veinte mil ciento siete
ochenta y cinco mil quinientos treinta y nueve
veintitrés mil doscientos ochenta y nueve
quince mil seiscientos cuarenta y cuatro
veinte mil setecientos cuatro
veintiún mil quinientos ochenta y nueve
diez mil doscientos veintiuno
sesenta y nueve mil seiscientos sesenta y cinco
ochenta y nueve mil veintitrés
ochenta mil trescientos nueve
cincuenta y cuatro mil trescientos setenta y cinco
veinticuatro mil ciento ocho
treinta y dos mil doscientos noventa
setenta y cuatro mil seis
sesenta y tres mil cuarenta y nueve
cuarenta y seis mil cuarenta y ocho
sesenta y ocho mil quinientos noventa y uno
tres mil ochocientos veinticinco
catorce mil noventa y nueve
setenta y dos mil setecientos ocho
cincuenta y cuatro mil cuatrocientos treinta y tres
noventa y seis mil novecientos diecinueve
noventa y tres mil setecientos noventa y dos
treinta y cinco mil seiscientos cuarenta y siete
sesenta y cinco mil setenta y siete
sesenta y seis mil seiscientos noventa y siete
sesenta y tres mil ciento trece
ochenta y nueve mil quinientos cincuenta y siete
ochenta y siete mil setecientos dieciséis
once mil seiscientos trece
setenta y dos mil cuatrocientos cincuenta y siete
cincuenta y tres mil trescientos cincuenta y nueve
nueve mil veinte
trece mil seiscientos tres
noventa y siete mil seiscientos ochenta
sesenta y seis mil uno
noventa y ocho mil ochocientos setenta y tres
cincuenta y tres mil setecientos setenta y siete
noventa y nueve mil cuatrocientos cuarenta y uno
cincuenta y seis mil trescientos catorce
setenta y dos mil seiscientos treinta y cinco
treinta y cinco mil seiscientos cuarenta y cinco
mil setecientos treinta y cinco
ochenta y un mil ochocientos sesenta
cuarenta y cinco mil novecientos cuarenta y cuatro
dieciséis mil doscientos treinta y dos
cuarenta y cinco mil trescientos diecisiete
noventa mil ochocientos setenta y uno
veinte mil setecientos cincuenta y dos
cuarenta y un mil seiscientos treinta
treinta y cuatro mil setecientos cincuenta y siete
setenta y tres mil quinientos cincuenta y nueve
dos mil novecientos ochenta y tres
cincuenta y seis mil ochocientos dos
doscientos cinco
dieciocho mil ciento tres
siete mil trescientos cuarenta y tres
cuarenta y seis mil ciento setenta y cinco
setenta y dos mil ciento tres
cincuenta y cinco mil novecientos noventa y uno
noventa y siete mil novecientos noventa y cuatro
sesenta y dos mil noventa y uno
cuarenta y tres mil novecientos veintitrés
noventa y nueve mil setecientos tres
noventa y cuatro mil setecientos dos
sesenta y cinco mil setenta y dos
ochenta y un mil quinientos setenta
sesenta y dos mil setecientos sesenta y seis
treinta y nueve mil doscientos ochenta y tres
setenta y cinco mil ciento diez
noventa y cuatro mil cuatrocientos cuarenta y nueve
cincuenta y nueve mil setecientos veintidós
cincuenta y cuatro mil trescientos noventa
cinco mil setecientos cuatro
ocho mil novecientos cinco
dieciséis mil doscientos cuarenta y uno
ochenta y nueve mil quinientos noventa y dos
dieciséis mil novecientos once
sesenta y un mil novecientos noventa y seis
noventa y seis mil sesenta y cinco
noventa y siete mil setecientos setenta y tres
setenta y cinco mil setecientos sesenta y cinco
quince mil cuatrocientos ocho
cuarenta y dos mil doscientos cuarenta y siete
noventa y cuatro mil quinientos noventa y ocho
cuarenta y dos mil quinientos cuarenta y dos
veintiséis mil ochocientos veintidós
setenta y nueve mil cuatrocientos sesenta y seis
treinta y tres mil ciento cincuenta y dos
sesenta mil cuatrocientos catorce
noventa y cinco mil cuatrocientos veinticuatro
dieciocho mil doscientos treinta y siete
veintitrés mil doscientos diecisiete
sesenta y cinco mil trescientos noventa y cuatro
cuarenta y nueve mil setecientos setenta y tres
diecinueve mil setecientos doce
sesenta y cuatro mil treinta y nueve
sesenta y un mil ochocientos setenta
seis mil setenta y uno
cincuenta y ocho mil novecientos diecisiete
doscientos veintitrés
cuarenta y dos mil seiscientos cuarenta y cuatro
cincuenta y tres mil ochenta y uno
veintitrés mil seiscientos treinta y siete
cincuenta y dos mil setecientos sesenta y tres
setenta y seis mil cuatrocientos cincuenta y nueve
dieciséis mil doscientos veintiséis
setenta y ocho mil quinientos ochenta y cinco
setenta y nueve mil dieciséis
diecisiete mil trescientos sesenta y cinco
ochocientos sesenta y cuatro
veintiséis mil setecientos
diez mil seiscientos trece
cuarenta y cuatro mil novecientos cincuenta y nueve
setenta y cinco mil novecientos noventa y uno
noventa y dos mil seiscientos ochenta y uno
diecisiete mil doscientos quince
siete mil doscientos cincuenta y nueve
cuarenta y cuatro mil trescientos ochenta y nueve
treinta y ocho mil novecientos noventa y tres
veintitrés mil novecientos treinta y seis
veintitrés mil seiscientos sesenta y uno
treinta mil seiscientos veintidós
treinta y tres mil novecientos dieciocho
sesenta y siete mil novecientos cuarenta y seis
cincuenta y nueve mil treinta y cuatro
nueve mil novecientos ochenta y nueve
cincuenta y nueve mil cincuenta y cuatro
ochenta y cinco mil trescientos noventa y ocho
veintisiete mil novecientos cinco
treinta mil cuatrocientos treinta y cuatro
cuarenta y dos mil doscientos setenta y uno
ochenta y dos mil ciento ochenta y cuatro
veintisiete mil quinientos dos
setenta mil novecientos ochenta y siete
sesenta y siete mil seiscientos veintinueve
cuarenta y cuatro mil ochocientos seis
cuarenta y un mil ciento cuarenta y siete
cincuenta mil trescientos setenta y tres
nueve mil novecientos treinta
veintinueve mil veintitrés
tres mil ochocientos ochenta y siete
noventa y cuatro mil quinientos cincuenta y ocho
treinta y un mil quinientos ochenta y seis
ochenta y cinco mil ochocientos noventa y cinco
cincuenta y dos mil ochocientos setenta y uno
veintinueve mil novecientos cincuenta
siete mil seiscientos noventa y uno
treinta y siete mil quinientos treinta y siete
setenta y dos mil quinientos cincuenta y cinco
veintiún mil cuatrocientos cuarenta y nueve
treinta y seis mil setecientos treinta y tres
treinta y dos mil doscientos setenta y dos
veintiséis mil seiscientos cuarenta y uno
setenta y un mil noventa y seis
cincuenta y cinco mil trescientos diecinueve
trece mil ciento veinte
sesenta y dos mil cuatrocientos noventa y cuatro
cuarenta y dos mil cuatrocientos setenta y uno
treinta y seis mil setecientos tres
cuarenta y cuatro mil seiscientos dos
noventa y un mil novecientos diecisiete
treinta y cinco mil quinientos noventa y cinco
veintitrés mil novecientos setenta
cuarenta y cinco mil doscientos cincuenta y nueve
ochenta y siete mil ocho
ochenta y un mil trescientos diez
cincuenta y dos mil doscientos veintidós
sesenta y cinco mil ochocientos treinta y seis
ochenta y cuatro mil ciento dieciocho
cuarenta mil novecientos noventa y dos
treinta y tres mil ciento sesenta y tres
veintidós mil novecientos noventa y siete
treinta y cinco mil quinientos cuarenta y cuatro
cuarenta y ocho mil ciento veintiséis
ocho mil doscientos diecinueve
veinticuatro mil ochocientos setenta y dos
diecinueve mil ciento cuarenta
noventa y nueve mil ochocientos sesenta y uno
ocho mil setecientos sesenta
cincuenta y dos mil setecientos ochenta
ochenta y seis mil cien
sesenta y un mil seiscientos treinta y seis
cuarenta y cinco mil seiscientos noventa y ocho
ochenta y seis mil setecientos dieciséis
noventa y nueve mil ochocientos veintisiete
noventa y tres mil setecientos cuarenta y ocho
ochenta y cuatro mil doscientos noventa y seis
ochenta y ocho mil cuatrocientos treinta y tres
quince mil sesenta y ocho
cincuenta y cinco mil setecientos noventa y cuatro
cincuenta y seis mil setecientos veintiséis
dos mil ochocientos sesenta y seis
cincuenta y cinco mil doscientos cuarenta y ocho
ochenta y nueve mil seiscientos setenta y dos
cincuenta y un mil cuatrocientos noventa y seis
treinta y ocho mil quinientos cincuenta y cinco
noventa y cuatro mil cuatrocientos veintitrés
treinta y dos mil trescientos noventa y uno
cuarenta y tres mil setecientos cuarenta y siete
cuarenta y un mil novecientos noventa y dos
noventa mil doscientos noventa y seis
sesenta y nueve mil quinientos veinticuatro
sesenta y dos mil seiscientos cuarenta y cuatro
sesenta y tres mil cuatrocientos cuarenta y seis
sesenta y ocho mil ciento treinta y cuatro
noventa y dos mil trescientos noventa y tres
cuatro mil quinientos setenta y tres
treinta mil novecientos cincuenta y nueve
diecisiete mil quinientos ochenta y seis
cuarenta y cinco mil setecientos treinta
quince mil trescientos diecinueve
noventa y seis mil doscientos sesenta
setenta y siete mil ciento treinta y nueve
ochenta y siete mil novecientos noventa y ocho
ochenta y cuatro mil seiscientos seis
quince mil ochocientos setenta y nueve
setenta mil ciento treinta y siete
cuarenta y ocho mil ochocientos cuarenta y cuatro
veintiún mil quinientos tres
veintisiete mil quinientos treinta y ocho
ocho mil quinientos noventa y ocho
veintiséis mil ochocientos sesenta y siete
treinta y dos mil novecientos veintiséis
diecisiete mil seiscientos treinta y cuatro
sesenta y cuatro mil ciento sesenta
setenta y tres mil seiscientos sesenta y dos
noventa y dos mil ciento sesenta y cinco
cincuenta y tres mil ochocientos dieciséis
cuarenta y nueve mil setecientos sesenta y dos
noventa y cuatro mil doscientos seis
sesenta y nueve mil novecientos cincuenta y nueve
sesenta y cinco mil treinta y siete
sesenta y tres mil doscientos cincuenta y cuatro
ochenta y cinco mil ochocientos setenta
noventa y cuatro mil doscientos siete
dos mil novecientos cuarenta y tres
setenta y siete mil cuatrocientos
sesenta y cinco mil ciento quince
once mil ciento setenta
setenta y dos mil ochocientos treinta y nueve
treinta y dos mil seiscientos veinticinco
sesenta y cuatro mil quinientos noventa y tres
noventa y un mil quinientos cuarenta y ocho
sesenta y nueve mil seiscientos ochenta y dos
ochenta y cuatro mil cuatrocientos veintinueve
sesenta y tres mil cuatrocientos sesenta y tres
veinticinco mil doscientos uno
cincuenta y seis mil ochocientos veinticuatro
veintiún mil doscientos cuarenta y cuatro
treinta mil setecientos cincuenta y siete
sesenta y siete mil seiscientos cuarenta y uno
cuarenta y seis mil ochenta y tres
cincuenta y cuatro mil cuatrocientos setenta y tres
cincuenta y nueve mil novecientos veinticinco
siete mil ciento cuatro
sesenta y ocho mil noventa y cinco
ochenta y cuatro mil setecientos sesenta y seis
cincuenta mil setecientos setenta y cinco
cincuenta mil ochocientos tres
cuarenta y cuatro mil setecientos sesenta y uno
veinticuatro mil trescientos
cuarenta mil ochocientos treinta y seis
seis mil trescientos noventa y cuatro
sesenta y un mil ochocientos setenta y uno
noventa y un mil trescientos sesenta y cuatro
treinta y tres mil cuatrocientos ochenta y nueve
once mil noventa y seis
cuarenta y tres mil ciento veinte
setenta mil seiscientos treinta y cuatro
nueve mil novecientos cuarenta y uno
sesenta y cinco mil novecientos sesenta y seis
noventa y dos mil cuatrocientos setenta y tres
treinta y un mil novecientos ochenta
treinta y cuatro mil ochocientos setenta y dos
veintitrés mil doscientos ocho
diecinueve mil novecientos setenta y uno
sesenta y tres mil ochocientos sesenta y seis
cuarenta y cinco mil cuarenta y dos
cuarenta mil veintidós
veintiséis mil cuatro
cuarenta y siete mil doscientos dieciséis
cincuenta y siete mil seiscientos veintiocho
sesenta y nueve mil ciento cuarenta y seis
sesenta y siete mil quinientos setenta y seis
setenta y nueve mil ochocientos veintisiete
treinta y un mil novecientos veinte
cuarenta mil quinientos cuarenta y cuatro
ochenta y un mil ochocientos cuarenta
veintinueve mil trescientos cincuenta
tres mil ciento cincuenta y siete
setenta mil ochocientos sesenta
cuarenta y dos mil ochocientos ochenta y nueve
treinta y cuatro mil cuatrocientos cincuenta y siete
nueve mil quinientos noventa y tres
diez mil ciento tres
treinta y tres mil setecientos sesenta y cuatro
ochenta y dos mil trescientos cincuenta y cuatro
setenta y cuatro mil veintiuno
cincuenta mil ochocientos noventa
sesenta mil novecientos veinticinco
treinta y dos mil trescientos ochenta y cinco
treinta mil ochocientos cincuenta y cuatro
treinta y seis mil quinientos cuarenta y cinco
veintisiete mil ciento setenta y ocho
siete mil cuatrocientos ochenta y cinco
mil novecientos sesenta y cinco
siete mil quinientos uno
noventa y cuatro mil seiscientos diecinueve
noventa y un mil quince
sesenta y cinco mil doscientos sesenta y siete
ochenta y siete mil novecientos ochenta y tres
ochenta mil trescientos cincuenta y cinco
treinta y siete mil setecientos cincuenta y uno
sesenta y cinco mil cuatrocientos cincuenta
diez mil veintiséis
once mil treinta y siete
cuarenta y siete mil novecientos sesenta y dos
ochenta y ocho mil sesenta y uno
sesenta y nueve mil doscientos ochenta y cuatro
catorce mil setecientos treinta y ocho
dieciséis mil quinientos cuarenta y cinco
cincuenta y cuatro mil trescientos veinte
cuarenta y dos mil novecientos treinta y seis
siete mil doscientos ochenta y seis
sesenta y un mil doscientos noventa y tres
veinticuatro mil cuatrocientos veintiséis
cuarenta y siete mil cuatrocientos setenta
nueve mil treinta y cinco
sesenta y nueve mil ochocientos treinta
setenta y un mil trescientos noventa y nueve
treinta y seis mil ochenta y uno
veintiocho mil ochocientos noventa y dos
cincuenta y un mil treinta y cuatro
ochenta y un mil ciento cuarenta y ocho
veintiocho mil sesenta y cinco
ochenta y ocho mil sesenta y seis
noventa mil novecientos cuarenta y tres
quince mil ciento seis
veintinueve mil cuatrocientos setenta y nueve
setenta y tres mil treinta y cinco
cincuenta y cinco mil ocho
sesenta y un mil setecientos diecinueve
noventa y ocho mil quinientos diecisiete
sesenta y cinco mil novecientos cuarenta y tres
setecientos cincuenta y siete
noventa y cuatro mil seiscientos treinta y tres
sesenta y seis mil trece
noventa y un mil doscientos cuarenta y nueve
dos mil seiscientos sesenta
veintiséis mil trescientos noventa y ocho
treinta y cuatro mil seiscientos setenta y nueve
treinta y dos mil cuatrocientos veintinueve
sesenta y siete mil ochocientos veintiuno
diez mil doscientos cincuenta y nueve
diez mil cuatrocientos catorce
ocho mil ciento sesenta y siete
cuatro mil seiscientos cincuenta y seis
ochenta y cinco mil cuarenta y tres
sesenta y nueve mil ochocientos treinta y tres
cuatrocientos cuarenta y nueve
sesenta y siete mil cuatrocientos cincuenta y seis
ocho mil doscientos
dieciséis mil cuatrocientos treinta
cuarenta y tres mil novecientos cincuenta y uno
noventa y siete mil setecientos setenta y cinco
noventa y ocho mil treinta y nueve
cincuenta y cinco mil quinientos ochenta y cinco
setenta mil treinta
sesenta y cinco mil ochocientos noventa y seis
sesenta y cinco mil novecientos setenta y dos
sesenta y un mil trescientos treinta y ocho
dieciocho mil setecientos ochenta
veintiséis mil cincuenta y cinco
veintinueve mil cuatrocientos veintidós
cincuenta y nueve mil quinientos cincuenta y cuatro
seis mil seiscientos cuarenta y dos
setenta mil seiscientos cuarenta y siete
treinta mil trescientos diecinueve
cuarenta y siete mil trescientos treinta y seis
ochenta y un mil cuatrocientos setenta y siete
cincuenta y ocho mil ochocientos cuarenta
doscientos veinte
diez mil cinco
sesenta y seis mil ciento sesenta y siete
cuatro mil ciento sesenta y ocho
cincuenta y un mil ochocientos setenta y cinco
cuatro mil
veintisiete mil seiscientos sesenta y cuatro
once mil cuatrocientos diez
ochenta y siete mil novecientos cincuenta y cinco
quinientos setenta y siete
veintiún mil setenta y dos
setenta mil cuarenta y siete
cinco mil ochocientos dieciocho
noventa y tres mil quinientos setenta
noventa y tres mil quinientos treinta y seis
setenta y cinco mil doscientos cincuenta y seis
veinte mil seiscientos setenta y uno
cincuenta y seis mil cuatrocientos ochenta y cinco
treinta y cinco mil doscientos cinco
diecisiete mil trescientos veintiuno
cuarenta y dos mil seiscientos sesenta y siete
treinta y ocho mil cuatrocientos cuatro
catorce mil cuatrocientos cincuenta y siete
sesenta y seis mil novecientos ochenta y seis
ochenta y un mil ochocientos treinta y cuatro
catorce mil ochocientos sesenta y cinco
sesenta y cinco mil doscientos treinta y siete
noventa y dos mil novecientos ochenta y dos
setenta y nueve mil setecientos sesenta y dos
ochenta mil doscientos setenta y uno
treinta y tres mil setecientos setenta y cuatro
setenta y nueve mil doscientos setenta y ocho
cuarenta y cuatro mil seiscientos ochenta
ochenta y dos mil novecientos noventa y siete
setenta y un mil ciento ochenta y dos
veintinueve mil cuatrocientos cuarenta y tres
sesenta y cinco mil quinientos setenta y cuatro
cincuenta mil ciento catorce
cuarenta y tres mil seiscientos sesenta y nueve
sesenta y siete mil quinientos setenta y tres
setenta y dos mil catorce
veintiún mil trescientos uno
cuarenta y un mil novecientos veintiséis
treinta y nueve mil tres
noventa mil trescientos ochenta y ocho
cuarenta y seis mil ciento cincuenta y tres
veintinueve mil trescientos cincuenta y cuatro
cuarenta y cinco mil seiscientos cuarenta y ocho
treinta y ocho mil cuatrocientos veintinueve
cuarenta y seis mil cuatrocientos
ochenta y nueve mil novecientos cuarenta y uno
ochenta y seis mil trescientos cuarenta y cuatro
noventa y siete mil ciento treinta
treinta y dos mil setecientos veintisiete
setenta y un mil cuatrocientos sesenta y cinco
diecisiete mil ciento diecinueve
veinte mil novecientos ochenta y nueve
cincuenta y siete mil quinientos cincuenta y seis
trece mil cuatrocientos dieciocho
mil trescientos cincuenta y cinco
ochenta y siete mil novecientos doce
ochenta y nueve mil ochocientos cincuenta y nueve
sesenta y tres mil setecientos
treinta y tres mil seiscientos veintiuno
cuarenta mil setecientos setenta y tres
veintisiete mil doscientos setenta y nueve
veinticinco mil novecientos treinta
ochenta y ocho mil doscientos cincuenta y seis
mil cuatrocientos sesenta y siete
dieciocho mil setecientos cuarenta y tres
veintiséis mil novecientos uno
cuarenta y un mil trescientos treinta y nueve
ochenta y dos mil setecientos ochenta y dos
trece mil setecientos seis
sesenta y cinco mil cuatrocientos dieciocho
treinta y cuatro mil quinientos tres
doce mil trescientos noventa y tres
setenta y tres mil trescientos setenta y cinco
ochenta y cuatro mil trescientos sesenta y dos
veintisiete mil ochocientos cuarenta y siete
setenta y nueve mil setecientos cincuenta
cuatro mil novecientos noventa y cuatro
cuarenta y siete mil ochocientos noventa y siete
cuarenta y tres mil quinientos cuatro
cincuenta y dos mil ciento cinco
veintitrés mil ciento cuarenta y ocho
ochenta y nueve mil setecientos sesenta y siete
cuarenta y nueve mil nueve
noventa y un mil cuatrocientos tres
noventa y seis mil cuatrocientos veintisiete
noventa y tres mil doscientos sesenta y nueve
cincuenta y un mil quinientos siete
ochenta y ocho mil novecientos doce
dieciocho mil novecientos treinta y siete
treinta y cinco mil quinientos sesenta y dos
noventa y tres mil doscientos noventa y uno
cuatro mil cuatrocientos ochenta y tres
cincuenta y siete mil ochenta y tres
noventa y ocho mil cuatrocientos cincuenta y ocho
sesenta y seis mil novecientos noventa y siete
mil cuatrocientos cuarenta y nueve
quince mil ochocientos cuarenta y tres
setenta y cinco mil ciento dieciséis
setenta y cuatro mil ochocientos ocho
veintidós mil quinientos dos
quince mil ciento diecinueve
ochenta y cuatro mil ochocientos veintiocho
sesenta y nueve mil novecientos ochenta y cinco
cuarenta y ocho mil seiscientos ochenta y cuatro
setenta y cuatro mil seiscientos cincuenta y dos
noventa y dos mil ciento ochenta y uno
cincuenta y tres mil cuatrocientos ochenta y uno
ochenta y cuatro mil ochocientos noventa y dos
sesenta y ocho mil tres
ocho mil ochocientos ochenta y cinco
cinco mil setecientos setenta y cuatro
treinta y un mil noventa y tres
cuarenta y siete mil cuatrocientos treinta y ocho
treinta y cuatro mil setecientos ochenta y tres
sesenta y cuatro mil ochocientos uno
sesenta y dos mil novecientos cinco
veintiocho mil ochocientos veintiuno
cuarenta y seis mil setecientos treinta y tres
once mil seiscientos ochenta y tres
noventa y ocho mil cuatrocientos diecinueve
cuarenta y cuatro mil cuatrocientos dos
cuarenta y cuatro mil doscientos veintitrés
cincuenta y tres mil ochocientos sesenta y uno
cuatro mil trescientos trece
cuatro mil novecientos setenta y ocho
veintidós mil quinientos noventa y uno
treinta y ocho mil ciento noventa y nueve
sesenta y ocho mil novecientos ochenta y ocho
cincuenta y un mil trescientos setenta y nueve
treinta y dos mil doscientos doce
ocho mil setecientos cincuenta
treinta y un mil sesenta y tres
once mil siete
treinta y cinco mil ochocientos treinta y uno
ochenta y cuatro mil trescientos veintiocho
siete mil novecientos cincuenta y ocho
once mil novecientos cincuenta y cuatro
cuarenta y tres mil ciento ochenta y dos
once mil cuatrocientos ocho
treinta mil quinientos treinta y nueve
treinta y seis mil ochocientos setenta y nueve
ochenta y seis mil dieciocho
cincuenta y un mil quinientos cuarenta y uno
cuarenta y seis mil ochocientos cincuenta y dos
sesenta y seis mil trescientos dieciséis
noventa y seis mil novecientos cincuenta y siete
noventa y cinco mil setecientos noventa
cuarenta y seis mil doscientos cinco
mil cuatrocientos treinta y uno
sesenta y dos mil trescientos veinte
novecientos ochenta
diez mil trescientos sesenta y dos
sesenta y tres mil ochocientos dieciocho
dieciséis mil novecientos veinte
ochenta y siete mil ochocientos setenta
veintiséis mil cuarenta y siete
cuarenta y cinco mil setecientos cincuenta y cinco
ochenta y nueve mil trescientos cinco
dos mil doscientos noventa y cinco
cuarenta y dos mil setecientos noventa y cinco
veinticinco mil novecientos dos
setenta y cuatro mil dieciocho
cuarenta y seis mil ciento siete
cuarenta y cinco mil novecientos setenta y seis
setenta y un mil seiscientos cincuenta y ocho
trece mil ochocientos ocho
sesenta y siete mil quinientos ochenta y cuatro
ochenta y un mil novecientos trece
setenta y un mil sesenta y siete
cuarenta y nueve mil novecientos treinta y uno
catorce mil novecientos catorce
veinticinco mil ochocientos diecinueve
cincuenta y cinco mil novecientos ochenta
dieciocho mil trescientos noventa y nueve
ochenta y cuatro mil novecientos sesenta y dos
siete mil cuatrocientos setenta y cuatro
sesenta y seis mil ciento veintidós
sesenta y cinco mil ciento dieciséis
ocho mil doscientos setenta y nueve
sesenta mil quinientos setenta y dos
nueve mil cuatrocientos sesenta y siete
quince mil cuarenta y ocho
dieciocho mil doscientos setenta y uno
noventa y un mil novecientos ochenta y tres
siete mil novecientos setenta y nueve
veintisiete mil trescientos ochenta y cuatro
veintidós mil doscientos cincuenta y cuatro
veintiocho mil ciento setenta y uno
diez mil ochenta y dos
sesenta y tres mil ciento setenta y cuatro
cuarenta y un mil veintiséis
setenta y seis mil quinientos cincuenta y dos
noventa y un mil seiscientos cincuenta y dos
noventa mil ochocientos seis
treinta y dos mil ciento ochenta y cinco
noventa y un mil ciento seis
treinta y seis mil setenta y siete
seis mil ochocientos noventa y cinco
veinticuatro mil cuatrocientos setenta y seis
setenta y cinco mil cincuenta y tres
noventa y un mil doscientos sesenta y cuatro
treinta y siete mil quinientos veintinueve
treinta y ocho mil ochocientos sesenta
cincuenta y seis mil cuatrocientos veintidós
veintiocho mil doscientos ochenta y nueve
cuarenta y seis mil ochocientos sesenta y seis
doce mil novecientos cuarenta y tres
treinta mil ciento sesenta y siete
noventa y un mil ochocientos setenta y cuatro
sesenta y siete mil ochocientos ochenta
veintiocho mil novecientos cuatro
cinco mil cuarenta y ocho
setenta y un mil setecientos setenta y cuatro
ochenta y cuatro mil setecientos cuarenta y ocho
sesenta mil doscientos doce
setenta y cuatro mil novecientos veintiocho
sesenta y siete mil ciento veinticinco
setenta y cuatro mil ciento ochenta y uno
nueve mil setecientos treinta y seis
noventa mil ochocientos sesenta y ocho
veintisiete mil trescientos
treinta y ocho mil cuatrocientos cincuenta y nueve
cuarenta y cinco mil doscientos noventa y siete
sesenta y dos mil seiscientos noventa
setenta y dos mil seiscientos treinta y nueve
ochenta y un mil cincuenta
noventa y nueve mil setecientos cuarenta y cinco
setenta y siete mil novecientos treinta
cincuenta y dos mil setecientos siete
cuarenta y tres mil cuatrocientos treinta y nueve
treinta y un mil doscientos setenta
ochenta y seis mil setecientos treinta y cinco
noventa y siete mil setecientos treinta y uno
ochenta y ocho mil ciento noventa y ocho
setenta y ocho mil cuatrocientos cuarenta y seis
setenta y cinco mil seiscientos treinta y cuatro
mil ochocientos treinta y uno
ochenta y tres mil sesenta y siete
sesenta y tres mil setenta y dos
sesenta y cinco mil ciento cuarenta
cinco mil novecientos quince
sesenta y cinco mil ciento treinta y dos
ochenta y cuatro mil novecientos treinta y ocho
veintisiete mil setecientos setenta y ocho
cincuenta y siete mil doscientos cuatro
cincuenta y cuatro mil setecientos veintinueve
ochenta y tres mil seiscientos sesenta y nueve
cuatro mil setenta y cinco
cincuenta y dos mil seiscientos nueve
dieciocho mil seiscientos noventa y uno
cuarenta y seis mil seiscientos noventa y cuatro
ochenta y seis mil setecientos cincuenta y tres
sesenta y siete mil treinta y ocho
cuarenta y tres mil setecientos sesenta y tres
cincuenta y dos mil trescientos dieciocho
doce mil setecientos veintinueve
ochenta y cinco mil seiscientos seis
ochenta mil once
setenta y cinco mil sesenta y seis
treinta y cinco mil seiscientos veintiséis
catorce mil novecientos cincuenta y seis
setenta y nueve mil setecientos cincuenta y dos
cincuenta y siete mil setecientos veintiséis
cincuenta y cinco mil novecientos ochenta y cuatro
cuarenta y siete mil setecientos cuarenta
noventa y nueve mil setecientos
nueve mil doscientos cincuenta y dos
sesenta y seis mil quinientos cincuenta y tres
noventa y ocho mil novecientos treinta y seis
noventa y seis mil trescientos diecinueve
treinta y dos mil sesenta y seis
sesenta y nueve mil ochocientos noventa
treinta y un mil novecientos cuarenta y siete
noventa y dos mil ciento ochenta y seis
ochenta y seis mil setecientos ochenta y seis
tres mil doscientos veintisiete
cuarenta y ocho mil cuatrocientos noventa y cuatro
treinta y siete mil cuatrocientos diecisiete
treinta y un mil diecisiete
noventa y seis mil seiscientos noventa y cuatro
cuarenta y nueve mil cuatrocientos sesenta y cuatro
seis mil trescientos cuarenta y ocho
sesenta y tres mil novecientos veintisiete
noventa y dos mil ciento tres
cincuenta y siete mil ciento cinco
treinta y un mil ciento ochenta
setenta y tres mil doce
sesenta mil ochocientos treinta y seis
treinta mil sesenta y cinco
ochenta y siete mil seiscientos treinta y seis
dieciséis mil setecientos veintidós
cincuenta y nueve mil novecientos veinticuatro
cuarenta y siete mil doscientos setenta y cinco
ochenta mil novecientos ochenta y ocho
siete mil setenta y tres
noventa y tres mil seiscientos sesenta y nueve
sesenta y tres mil setenta
sesenta y seis mil setenta y ocho
veinte mil quinientos noventa y dos
noventa y dos mil doscientos setenta
dieciocho
treinta y nueve mil seiscientos ochenta y tres
cuarenta y seis mil cincuenta y dos
ochenta mil seiscientos sesenta y tres
noventa y un mil doscientos noventa y cinco
noventa y siete mil setecientos setenta y nueve
sesenta y dos mil doscientos cincuenta y ocho
catorce mil seiscientos setenta y seis
ochenta mil setecientos setenta y nueve
sesenta y un mil cuatrocientos cuarenta y siete
veinte mil novecientos cincuenta y ocho
treinta y siete mil treinta y siete
noventa y nueve mil quinientos cincuenta y uno
cincuenta y siete mil cuatrocientos treinta y cuatro
setenta y cinco mil setecientos ochenta y dos
treinta y siete mil ciento cinco
noventa y seis mil setecientos cincuenta
noventa y dos mil cuatrocientos cincuenta y ocho
sesenta y seis mil sesenta y dos
diez mil seiscientos cincuenta y ocho
noventa mil trescientos treinta y cinco
noventa y seis mil seiscientos cuarenta y cinco
cuarenta mil trescientos sesenta y tres
cincuenta y nueve mil setecientos treinta y cuatro
setenta y tres mil ciento diecinueve
setenta y dos mil sesenta y siete
cincuenta y dos mil ciento diecisiete
cincuenta y un mil trescientos
cuarenta mil trescientos cuarenta y siete
setenta y seis mil trescientos treinta y uno
nueve mil doscientos veintiséis
setenta y tres mil ochocientos noventa
dos mil quinientos once
cincuenta y seis mil setecientos ochenta y cuatro
sesenta y siete mil cuatrocientos sesenta y dos
cincuenta y un mil ciento treinta y seis
cincuenta y ocho mil treinta
cincuenta y cuatro mil doscientos treinta y nueve
veintitrés mil ochocientos treinta
ochenta y cuatro mil ochocientos ochenta y siete
cuarenta y tres mil cuatrocientos
noventa y un mil novecientos setenta
treinta y ocho mil novecientos setenta y uno
veinticuatro mil ciento cuarenta y ocho
sesenta y tres mil quinientos treinta y siete
doce mil ochocientos ochenta y tres
sesenta y tres mil ciento sesenta y uno
noventa y dos mil cuatrocientos ochenta y dos
cuarenta y tres mil trescientos cincuenta y seis
trece mil novecientos sesenta y cuatro
veintiocho mil novecientos siete
veinticinco mil setecientos sesenta y seis
cuarenta y un mil cuatrocientos cinco
once mil ochocientos sesenta y seis
veinte mil seiscientos treinta
ochenta mil cien
dieciséis mil quinientos diecisiete
dieciséis mil quinientos sesenta y seis
cincuenta y dos mil novecientos treinta y cuatro
dieciocho mil ciento sesenta y cuatro
veintitrés mil ochenta y cinco
cincuenta y cuatro mil doscientos treinta y ocho
treinta y cuatro mil ochocientos ochenta y ocho
treinta y siete mil ochocientos treinta y tres
setenta y cuatro mil trescientos cincuenta y uno
sesenta y seis mil cuatrocientos cincuenta y seis
treinta y nueve mil quinientos treinta y uno
dos mil seiscientos uno
setenta y tres mil trescientos cuarenta y seis
veintisiete mil setecientos sesenta y ocho
setenta y tres mil trescientos veintidós
treinta y seis mil ochocientos veintidós
treinta y cinco mil setecientos quince
quince mil ciento cincuenta y uno
ochenta y cuatro mil setecientos noventa y cinco
cuarenta y cuatro mil setecientos diecinueve
setenta mil doscientos noventa y ocho
veintiséis mil trescientos treinta
catorce mil doscientos veintiocho
treinta y un mil novecientos ochenta y nueve
setenta y cinco mil cuatrocientos cincuenta
ochenta y cinco mil doscientos veinte
veintisiete mil novecientos veintitrés
treinta y siete mil setecientos treinta y dos
cuarenta y dos mil novecientos uno
catorce mil cincuenta y seis
setenta y cinco mil seiscientos ochenta
catorce mil quinientos noventa y cinco
cincuenta mil novecientos treinta y uno
nueve mil veintiséis
setenta y tres mil cuatrocientos veintinueve
setenta y siete mil nueve
cincuenta mil cuatrocientos diecisiete
treinta y cuatro mil cuarenta y nueve
setecientos doce
seis mil ciento trece
setenta y cuatro mil doscientos veintiocho
setenta mil setecientos noventa y uno
siete mil cuatrocientos cinco
quince mil seiscientos cincuenta y tres
ochenta y nueve mil trescientos uno
sesenta y seis mil trescientos veinte
sesenta y cinco mil trescientos cincuenta y seis
treinta y cinco mil ochocientos treinta y cinco
treinta y cuatro mil dieciocho
sesenta y tres mil novecientos noventa y nueve
ocho mil cuatrocientos sesenta y cinco
cuatro mil ochocientos veinte
ochenta y cuatro mil ochocientos noventa y siete
veintinueve mil trescientos treinta y ocho
cincuenta y tres mil seiscientos dos
cuarenta y nueve mil ochocientos setenta y dos
noventa mil ciento setenta y seis
veintisiete mil ciento ochenta y cuatro
cuarenta y nueve mil ochenta y nueve
veinte mil doscientos cincuenta y uno
setenta y cuatro mil novecientos treinta
treinta y cuatro mil seiscientos setenta y seis
novecientos veinticuatro
noventa y dos mil ciento setenta y dos
treinta y ocho mil trescientos dos
treinta y siete mil setecientos veintiocho
veinte mil cuarenta y uno
veinte mil trescientos sesenta y dos
cincuenta y siete mil seiscientos cincuenta y cinco
veintinueve mil noventa y cinco
treinta y tres mil quinientos ochenta y cuatro
dos mil seiscientos tres
treinta y siete mil quinientos cuarenta y uno
veinte mil ochocientos cincuenta y siete
ochenta y seis mil seiscientos setenta y tres
sesenta y dos mil seiscientos ochenta y cuatro
treinta y un mil ochocientos veintitrés
sesenta y ocho mil novecientos noventa y tres
setenta y siete mil noventa y nueve
ochenta y un mil sesenta y siete
treinta y ocho mil doscientos once
veinticinco mil novecientos cinco
sesenta y siete mil doscientos setenta
cuarenta mil cuatrocientos veinte
dos mil novecientos ochenta y dos
cuarenta y un mil seiscientos setenta y cuatro
noventa mil novecientos veintitrés
veinte mil cuatrocientos seis
setenta y nueve mil novecientos ochenta y dos
cincuenta y ocho mil setecientos noventa y nueve
sesenta y seis mil treinta y ocho
nueve mil doscientos ochenta y nueve
cincuenta y nueve mil setecientos sesenta y uno
mil setecientos treinta y uno
ochenta mil novecientos diecinueve
noventa y seis mil quinientos veinticinco
trece mil novecientos veintidós
noventa y dos mil cincuenta y seis
cincuenta y cuatro mil doscientos quince
ochenta y cinco mil quinientos treinta y tres
treinta y dos mil trescientos treinta y dos
noventa y siete mil quinientos setenta y nueve
ochenta y un mil seiscientos once
cincuenta y ocho mil seiscientos seis
cincuenta y ocho mil seiscientos setenta
catorce mil novecientos noventa y uno
ochenta y siete mil trescientos ochenta y ocho
siete mil quinientos cincuenta y siete
cuarenta y nueve mil quinientos veintiocho
ochenta mil doscientos veintiuno
cincuenta y un mil novecientos diecinueve
veinticinco mil seiscientos ochenta y cuatro
veintiocho mil setecientos noventa y siete
cuarenta y nueve mil quinientos veinticuatro
cincuenta y un mil cuatrocientos sesenta y cuatro
noventa y ocho mil novecientos noventa y dos
treinta y ocho mil quinientos treinta y siete
sesenta y dos mil trescientos cuarenta y ocho
trece mil quinientos veintiocho
ochenta y siete mil quinientos veintiocho
veintidós mil doscientos noventa y dos
veintiocho mil cuatrocientos sesenta
ochenta y tres mil trescientos veintiocho
treinta y dos mil diez
noventa y cinco mil seiscientos cuarenta y nueve
diecisiete mil cuatrocientos ochenta y dos
sesenta y ocho mil seiscientos cinco
ochenta y cuatro mil ochocientos cuarenta y cinco
cincuenta y ocho mil trescientos veintinueve
noventa y nueve mil novecientos cuarenta y seis
dieciocho mil setecientos dieciséis
ochenta y cinco mil dos
sesenta mil novecientos nueve
tres mil tres
treinta y un mil treinta y cuatro
siete mil ciento diez
ochenta y cinco mil novecientos once
cuarenta y cinco mil ciento treinta y seis
siete mil seiscientos cincuenta y siete
noventa y cuatro mil trescientos nueve
sesenta y dos mil cuatrocientos
setenta y siete mil ciento diecinueve
cincuenta y un mil novecientos sesenta y uno
doce mil ochocientos cincuenta y tres
veintitrés mil novecientos cuarenta y cuatro
cuarenta y tres mil ciento sesenta y seis
diecisiete mil doscientos veinte
treinta mil ochocientos treinta
treinta y seis mil trescientos noventa y cuatro
ocho mil seiscientos sesenta y siete
