:
package	Sa	Sacck(-
0e487777777+	S4c,ck(-

999@99