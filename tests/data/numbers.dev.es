sesenta y nueve mil cuatrocientos sesenta y seis
treinta y cinco mil veintinueve
diez mil trescientos ochenta y nueve
veintiséis mil trescientos cincuenta y nueve
cincuenta y nueve mil treinta y ocho
sesenta y un mil setecientos setenta
sesenta y siete mil quinientos setenta y nueve
cuarenta y cinco mil setenta y uno
setenta y cinco mil doscientos veinticuatro
setenta y siete mil cuatrocientos veinticinco
cincuenta y siete mil ochocientos cuarenta y dos
noventa y tres mil setecientos treinta y siete
ochenta y cuatro mil quinientos dieciocho
noventa y nueve mil quinientos quince
setenta y cinco mil cuatrocientos noventa y cuatro
sesenta y nueve mil cincuenta y dos
cincuenta y tres mil trescientos veinticuatro
noventa y seis mil trescientos sesenta y nueve
treinta y ocho mil sesenta y seis
noventa y un mil doscientos setenta y tres
noventa y ocho mil setecientos cuarenta y uno
setenta y ocho mil novecientos noventa y tres
cincuenta y un mil quinientos noventa y tres
cincuenta y seis mil setecientos noventa y tres
ochenta y un mil trescientos sesenta y seis
treinta y ocho mil setecientos cincuenta y nueve
dieciséis mil ciento noventa y seis
sesenta y nueve mil ochenta y siete
cincuenta y seis mil quinientos cincuenta y nueve
treinta y ocho mil setecientos treinta y nueve
setenta y siete mil veintiocho
treinta y cinco mil trescientos sesenta
ochenta y tres mil ochocientos sesenta y cinco
setenta y cuatro mil cincuenta y cuatro
seiscientos quince
ochenta y nueve mil catorce
ochenta y nueve mil cuatrocientos
cuarenta y cuatro mil doscientos ochenta y nueve
veintiocho mil treinta y dos
nueve mil noventa y ocho
setenta y ocho mil novecientos cuarenta y cinco
veintiún mil seiscientos sesenta y cuatro
sesenta y seis mil ciento sesenta y seis
treinta y cuatro mil ochocientos ochenta y dos
diecinueve mil doscientos noventa y nueve
setenta y seis mil ciento veintiséis
diecinueve mil seiscientos
ochenta y ocho mil quinientos cuarenta y ocho
ochenta y cuatro mil seiscientos setenta y ocho
cuarenta mil ochocientos veintiséis
cuarenta mil cuatrocientos seis
ochenta y siete mil trescientos cuarenta y uno
cincuenta y dos mil novecientos veintiséis
diecinueve mil setecientos ocho
setenta y ocho mil quinientos noventa y cuatro
setenta y ocho mil trescientos setenta y ocho
setenta y nueve mil seiscientos veintidós
seis mil trescientos sesenta y seis
ochenta y cinco mil trescientos diez
ochenta y seis mil cuatrocientos setenta y tres
treinta y un mil cuatrocientos treinta y dos
dieciséis mil seiscientos sesenta y ocho
treinta y dos mil ciento setenta y siete
noventa y dos mil trescientos cincuenta y seis
ochenta y cuatro mil novecientos veinticinco
setenta mil seiscientos noventa
ochenta y seis mil treinta y nueve
veinte mil cuatrocientos treinta y uno
sesenta y nueve mil doscientos treinta
sesenta y siete mil setecientos sesenta y seis
veinticinco mil novecientos setenta y siete
veintinueve mil cuatrocientos noventa y cuatro
cuatro mil setecientos ocho
setenta y seis mil quinientos noventa y nueve
once mil ochocientos cuarenta y siete
noventa y siete mil doscientos dos
veinte mil setecientos setenta y cinco
sesenta y ocho mil doscientos uno
setenta y seis mil ochocientos noventa
treinta y dos mil ciento sesenta y cuatro
sesenta y un mil cuatrocientos tres
diecinueve mil novecientos trece
setenta y seis mil ochocientos noventa y seis
noventa y dos mil trescientos seis
cuarenta y un mil setecientos noventa y ocho
ochenta mil novecientos cincuenta y dos
ochenta y tres mil quinientos treinta y tres
treinta y un mil doscientos ochenta y uno
treinta y nueve mil cuatrocientos veintinueve
sesenta y un mil treinta y seis
sesenta y siete mil setecientos ochenta y cinco
nueve mil cuatrocientos setenta y tres
setenta y tres mil cuatrocientos ochenta y nueve
cincuenta y cinco mil trescientos veintidós
ochenta y dos mil ochocientos treinta
cuarenta y dos mil ciento cuarenta y siete
cuarenta y cuatro mil trescientos veintisiete
noventa y un mil doscientos veintitrés
setenta y dos mil quinientos cuarenta y siete
sesenta y ocho mil setecientos setenta y cinco
ochenta y dos mil ochocientos veinticuatro
ochenta y ocho mil quinientos treinta y ocho
veintiocho mil setecientos setenta y cuatro
diecisiete mil doscientos veintitrés
cuarenta y cuatro mil quinientos treinta y ocho
cincuenta y seis mil cuarenta
treinta y tres mil setecientos sesenta y uno
setenta y ocho mil cuarenta y nueve
noventa y un mil cuatrocientos veintiséis
ochenta mil seiscientos treinta y cuatro
cuarenta y tres mil sesenta y cuatro
cincuenta y siete mil noventa y cuatro
cuarenta y dos mil ochocientos cincuenta y ocho
cuatro mil novecientos cincuenta
ochenta y ocho mil setecientos cincuenta y cuatro
treinta y seis mil ochocientos ochenta y seis
ciento setenta y tres
noventa y seis mil quinientos treinta y ocho
treinta y tres mil cuatrocientos ochenta y siete
noventa y nueve mil doscientos ochenta y uno
ochenta y dos mil quinientos ochenta y seis
treinta y dos mil seiscientos cuarenta y siete
cuarenta mil doscientos cuarenta y siete
quince mil cuatrocientos sesenta y tres
veinte mil ochenta y seis
veinte mil ochocientos ochenta y siete
doce mil quinientos treinta y cuatro
cincuenta y cinco mil trescientos setenta y ocho
treinta y dos mil setecientos
noventa y dos mil ciento treinta y cinco
setenta y nueve mil cuatrocientos cincuenta y nueve
ochenta y cuatro mil ochocientos cuarenta y nueve
veintidós mil doscientos veintinueve
veinticinco mil doscientos
setenta y un mil cuatrocientos cincuenta y seis
treinta y nueve mil seiscientos veintiuno
treinta mil ochocientos cuarenta y tres
mil doscientos setenta y uno
treinta y tres mil setecientos treinta y ocho
diecisiete mil ciento treinta y uno
dos mil ciento sesenta y tres
ocho mil ciento setenta y dos
sesenta y seis mil seiscientos nueve
quince mil quinientos veinte
siete mil ciento setenta y siete
veintitrés mil quinientos noventa y dos
noventa y tres mil cuatrocientos setenta y cinco
quince mil ciento treinta y uno
cuarenta y tres mil setecientos cincuenta y nueve
noventa y dos mil trescientos ochenta y cuatro
cincuenta y nueve mil setecientos ochenta y tres
cincuenta y seis mil quinientos noventa y uno
setenta y tres mil ochocientos ochenta y seis
cincuenta y seis mil ciento setenta y ocho
trece mil setecientos tres
treinta y seis mil setecientos noventa y cuatro
quince mil cuatrocientos sesenta y seis
setenta y ocho mil seiscientos veintitrés
cuarenta y siete mil setecientos treinta y ocho
cincuenta y nueve mil cuatrocientos cinco
veintisiete mil ciento cincuenta y tres
ochenta mil novecientos treinta y cinco
veintiún mil quinientos veinte
sesenta mil ciento noventa y dos
setenta y cinco mil setecientos setenta y seis
veinticuatro mil novecientos cinco
veintiún mil doscientos treinta y nueve
veintinueve mil quinientos cincuenta y nueve
noventa y siete mil setecientos ocho
cuarenta y nueve mil seiscientos ochenta y ocho
treinta y tres mil setecientos treinta y tres
veintiséis mil setecientos ocho
cinco mil trescientos diecinueve
veintiocho mil doscientos noventa y uno
setenta y tres mil uno
cincuenta y seis mil cuarenta y ocho
noventa y seis mil quinientos noventa y cuatro
veinticinco mil ciento treinta y ocho
dos mil doscientos setenta y cinco
treinta y tres mil doscientos veintiuno
cincuenta y cinco mil trescientos diez
veintidós mil seiscientos noventa y nueve
sesenta y un mil seiscientos setenta y seis
cincuenta y nueve mil setecientos sesenta y dos
sesenta y cuatro mil seiscientos cincuenta y cuatro
once mil cuatrocientos cuarenta y nueve
dieciocho mil trescientos setenta y seis
noventa y un mil ochocientos setenta
noventa y ocho mil ochocientos
ochenta y siete mil cuatrocientos veintiuno
cincuenta y seis mil setecientos cuatro
ochenta y seis mil trescientos cincuenta y cuatro
cincuenta y cuatro mil quinientos ochenta y cinco
veintinueve mil veintiséis
doce mil novecientos ochenta y seis
noventa y tres mil seiscientos noventa
noventa y cuatro mil novecientos diecinueve
veinticinco mil setecientos noventa y ocho
setenta y cinco mil novecientos cuarenta y dos
sesenta y cinco mil ciento setenta y siete
